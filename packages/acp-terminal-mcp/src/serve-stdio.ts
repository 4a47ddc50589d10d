import type { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

/**
 * Serves MCP on this process's stdin/stdout (both eras: a 2025 `initialize` handshake, or
 * 2026-07-28 per-request envelopes) until the client closes stdin. Resolves then.
 */
export async function serveOnStdio(
  factory: () => Server,
  onerror: (error: Error) => void,
): Promise<void> {
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  const handle = serveStdio(factory, { onerror });
  await ended;
  await handle.close();
}
