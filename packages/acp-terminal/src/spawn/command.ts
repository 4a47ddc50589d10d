import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { ShellMode } from "../core/types.js";

/**
 * Whitespace or any character a shell gives meaning to: `| & ; < > ( ) $ \` \\ " ' * ? [ ] # ~ = % { }`
 * and newlines. A command line containing one of these needs a shell to mean what it says.
 */
const SHELL_SYNTAX = /[\s|&;<>()$`\\"'*?[\]#~=%{}]/;

export interface CommandPlan {
  file: string;
  args: string[];
  /** True when the command line runs through `<shell> -c`. */
  shell: boolean;
}

/**
 * How to run a request. `args` given (even `[]`) → direct exec of `command` with exactly those
 * arguments, no shell and no quoting. No `args`: mode `"always"` → `<shell> -c command`; `"auto"`
 * → the same when the command has whitespace or shell syntax, else direct exec; `"never"` → direct.
 */
export function planCommand(
  command: string,
  args: string[] | null | undefined,
  mode: ShellMode,
  shellPath: () => string,
): CommandPlan {
  if (args) {
    return { file: command, args: [...args], shell: false };
  }
  const useShell = mode === "always" || (mode === "auto" && SHELL_SYNTAX.test(command));
  return useShell
    ? { file: shellPath(), args: ["-c", command], shell: true }
    : { file: command, args: [], shell: false };
}

export function isExecutableFile(path: string): boolean {
  try {
    // Missing (most PATH entries a search tries) answered without an exception: cheaper by far.
    if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) {
      return false;
    }
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false; // not executable, or not reachable (ENOTDIR, EACCES): keep searching
  }
}

/** The first executable `name` on `PATH`, or undefined. Names with a slash are not searched. */
export function findOnPath(name: string, path: string | undefined): string | undefined {
  if (name.includes("/")) {
    return undefined;
  }
  for (const dir of (path ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) {
      continue;
    }
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** `bash` where it exists on the host's PATH, else `/bin/sh`. */
export function resolveShell(path: string | undefined): string {
  return findOnPath("bash", path) ?? (isExecutableFile("/bin/sh") ? "/bin/sh" : "sh");
}
