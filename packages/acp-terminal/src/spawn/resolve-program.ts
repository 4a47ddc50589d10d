import { resolve as resolvePath } from "node:path";
import { findOnPath, isExecutableFile, type CommandPlan } from "./command.js";
import { DEFAULT_SEARCH_PATH } from "./program.js";

/** A word a shell runs as it reads it: no quoting, expansion, redirection or separator in it. */
const PLAIN_WORD = /^[\w@%+:,./-]+$/;

/**
 * The program `name` means, as exec will find it: a name with a slash through `cwd`, any other on
 * `path` (whose entries are all absolute: see absolutePathEntries), else the default search path.
 * Null when there is no executable file there.
 */
export function resolveProgram(name: string, cwd: string, path: string | undefined): string | null {
  if (name.includes("/")) {
    const candidate = resolvePath(cwd, name);
    return isExecutableFile(candidate) ? candidate : null;
  }
  return findOnPath(name, path ?? DEFAULT_SEARCH_PATH) ?? null;
}

/**
 * What a plan runs, for approval: the program, resolved to an absolute path, and the argv that is
 * executed. For a command line run by the shell the argv is `[shell, "-c", line]` and the program
 * is the line's first word resolved the same way (a shell searches the same PATH; its builtins
 * and functions aside), or null when that word is not a plain word.
 */
export function resolvePlan(
  plan: CommandPlan,
  cwd: string,
  path: string | undefined,
): { program: string | null; argv: string[] } {
  const argv = [plan.file, ...plan.args];
  if (!plan.shell) {
    return { program: resolveProgram(plan.file, cwd, path), argv };
  }
  const first = plan.args[1]?.trim().split(/[ \t]+/)[0] ?? "";
  return { program: PLAIN_WORD.test(first) ? resolveProgram(first, cwd, path) : null, argv };
}
