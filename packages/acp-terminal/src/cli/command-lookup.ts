import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** Words the shell handles itself: a command line starting with one is never looked up on PATH. */
const SHELL_WORDS = new Set([
  ".", ":", "!", "{", "(", "[", "alias", "builtin", "case", "cd", "command", "eval", "exec",
  "export", "for", "if", "set", "source", "time", "trap", "ulimit", "umask", "unset", "until", "while",
]);

/**
 * The program a plain command line starts with (`npx my-agent` → `npx`), or undefined when the
 * line starts with shell syntax (assignments, quotes, builtins) and only the shell can tell.
 */
export function leadingProgram(commandLine: string): string | undefined {
  const first = commandLine.trim().split(/\s+/, 1)[0] ?? "";
  if (first === "" || SHELL_WORDS.has(first)) return undefined;
  if (!/^[\w./+@~-]+$/.test(first) || first.startsWith("~")) return undefined;
  return first;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    // Missing, not executable or unreadable: all mean "the shell could not run it".
    return false;
  }
}

/** True when the shell would find `program` (a path, or a name on PATH). */
export function programExists(program: string, cwd: string, envPath = process.env.PATH ?? ""): boolean {
  if (program.includes("/")) return isExecutableFile(path.resolve(cwd, program));
  return envPath
    .split(path.delimiter)
    .filter((dir) => dir !== "")
    .some((dir) => isExecutableFile(path.join(dir, program)));
}
