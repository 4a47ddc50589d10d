import { isExecutableFile } from "./command.js";

/**
 * The shell that makes stderr a copy of stdout's descriptor: `exec "$@" 2>&1` replaces the shell
 * with the command (same pid, argv, exit status and signals), whose fd 2 is then its fd 1, one
 * socket, so what it writes to either arrives in the order it wrote it, as on a terminal. Node
 * cannot create a pipe to pass twice, and two pipes are read in whatever order they fill.
 */
const MERGE_SHELL = "/bin/sh";
const MERGE_SCRIPT = 'exec "$@" 2>&1';

let mergeShellExists: boolean | undefined;

/**
 * The argv that runs `argv` with stderr merged into stdout, or `argv` itself where there is no
 * /bin/sh (then stdout and stderr stay two pipes, merged in arrival order).
 */
export function withStderrOnStdout(argv: readonly string[]): string[] {
  mergeShellExists ??= isExecutableFile(MERGE_SHELL);
  return mergeShellExists ? [MERGE_SHELL, "-c", MERGE_SCRIPT, "sh", ...argv] : [...argv];
}
