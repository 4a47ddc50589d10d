import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, readFile, unlink } from "node:fs/promises";

/** A bearer token for a server started without one: 256 random bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Writes the token to `file`, readable and writable by this user only (0600, as notebook servers
 * keep theirs): created so, or truncated and set so; never through a symlink.
 */
export async function writeTokenFile(file: string, token: string): Promise<void> {
  const handle = await open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await handle.chmod(0o600); // an existing file keeps its mode through open
    await handle.writeFile(`${token}\n`);
  } finally {
    await handle.close();
  }
}

/** Removes the token file when it still holds this server's token (another may have taken it over). */
export async function removeTokenFile(file: string, token: string): Promise<void> {
  try {
    if ((await readFile(file, "utf8")).trim() === token) {
      await unlink(file);
    }
  } catch {
    // Already gone, or unreadable: nothing of ours to remove.
  }
}
