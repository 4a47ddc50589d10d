import path from "node:path";
import { findOnPath, isExecutableFile } from "acp-terminal/internal";

/** Words the shell handles itself: a command line starting with one is never looked up on PATH. */
const SHELL_WORDS = new Set([
  ".",
  ":",
  "!",
  "{",
  "(",
  "[",
  "alias",
  "builtin",
  "case",
  "cd",
  "command",
  "eval",
  "exec",
  "export",
  "for",
  "if",
  "set",
  "source",
  "time",
  "trap",
  "ulimit",
  "umask",
  "unset",
  "until",
  "while",
]);

/**
 * The program a plain command line starts with (`npx my-agent` → `npx`), or undefined when the
 * line starts with shell syntax (assignments, quotes, builtins) and only the shell can tell.
 */
export function leadingProgram(commandLine: string): string | undefined {
  const first = commandLine.trim().split(/\s+/, 1)[0] ?? "";
  if (first === "" || SHELL_WORDS.has(first)) {
    return undefined;
  }
  if (!/^[\w./+@~-]+$/.test(first) || first.startsWith("~")) {
    return undefined;
  }
  return first;
}

/**
 * True when the shell would find `program` (a path, or a name on PATH), with the host's own PATH
 * search (`findOnPath`) for absolute entries. That search skips relative entries, which the shell
 * searches from its cwd (npm and pnpm put `./node_modules/.bin` on PATH; `""` means the cwd itself),
 * so those are looked at here, from `cwd`, where the agent's shell starts.
 */
export function programExists(
  program: string,
  cwd: string,
  envPath = process.env.PATH ?? "",
): boolean {
  if (program.includes("/")) {
    return isExecutableFile(path.resolve(cwd, program));
  }
  if (findOnPath(program, envPath) !== undefined) {
    return true;
  }
  return envPath
    .split(path.delimiter)
    .filter((dir) => !path.isAbsolute(dir))
    .some((dir) => isExecutableFile(path.resolve(cwd, dir, program)));
}
