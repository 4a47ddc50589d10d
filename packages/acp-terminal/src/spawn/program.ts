import { accessSync, constants, statSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { findOnPath } from "./command.js";
import { spawnError } from "./errors.js";

/**
 * Where a program is looked for when the command's environment has no PATH (`env: "empty"`):
 * the usual system directories, as a shell's default PATH has them.
 */
export const DEFAULT_SEARCH_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * A program started through a wrapper (node-pty, the `2>&1` shell, nsenter) is reported missing
 * only as an exit code with a message in the output, so it is looked up first (on the command's
 * own PATH, as execvp will, or on DEFAULT_SEARCH_PATH when it has none) to fail with ENOENT or
 * EACCES as a direct spawn does.
 * Returns the file to execute: the program found, when it was found on DEFAULT_SEARCH_PATH.
 */
export function checkProgram(file: string, cwd: string, path: string | undefined): string {
  const candidate = file.includes("/")
    ? resolvePath(cwd, file)
    : findOnPath(file, path ?? DEFAULT_SEARCH_PATH);
  const fail = (code: string): never => {
    throw spawnError(file, Object.assign(new Error(`${code}: ${file}`), { code }));
  };
  if (!candidate) {
    return fail("ENOENT");
  }
  let isFile: boolean;
  try {
    isFile = statSync(candidate).isFile();
  } catch {
    return fail("ENOENT"); // stat failed: nothing there to run
  }
  if (!isFile) {
    return fail("EACCES");
  }
  try {
    accessSync(candidate, constants.X_OK);
  } catch {
    fail("EACCES"); // not executable by us
  }
  // Without a PATH execvp would search its own default, which may lack the directory we found.
  return path === undefined && !file.includes("/") ? candidate : file;
}
