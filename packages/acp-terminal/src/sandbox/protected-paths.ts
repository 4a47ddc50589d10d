import path from "node:path";
import type { SandboxMode } from "./sandbox-options.js";

/** Why a client's file write is protected, and whether the sandbox refuses it outright. */
export interface WriteProtection {
  /**
   * The sandbox in force keeps it read-only for every command, whoever approved it: a `.git`
   * under `read-only` or `workspace-write`. Else only a person (or `--yes`) may approve the write,
   * never an allow pattern.
   */
  refused: boolean;
  /** What the file is, for the question and the refusal (`inside .git: git runs what …`). */
  reason: string;
}

/** A name git reads a repository from: config, hooks and the `gitdir:` of a worktree. */
const GIT_DIR = ".git";

/**
 * Whether writing `file` (absolute, its real path) is protected, as the sandbox protects it from
 * commands:
 * - anything inside a `.git`, or named `.git`, at any depth: what git reads there (`core.fsmonitor`,
 *   hooks, `diff.external`, a `gitdir:` pointing elsewhere) runs the next time anyone runs git
 *   there, outside any sandbox. Under a sandbox it is refused; without one, asked;
 * - a dotfile or dot-directory at the top of one of `tops` (the session's cwd, the other
 *   directories the agent may reach, the home directory): `.bashrc`, `.gitconfig`, `.envrc`,
 *   `.vscode/`, `.husky/` are read by shells, git, direnv and editors, which run what they say.
 *   Asked, never approved by a pattern.
 * Names are compared without case (a case-insensitive filesystem has one `.GIT`).
 */
export function writeProtection(
  file: string,
  tops: readonly string[],
  sandbox: SandboxMode,
): WriteProtection | undefined {
  const names = file.split("/");
  if (names.some((name) => name.toLowerCase() === GIT_DIR)) {
    return {
      refused: sandbox !== "off",
      reason: `inside ${GIT_DIR} (git runs what its config and hooks there say, outside any sandbox)`,
    };
  }
  for (const top of tops) {
    const relative = path.relative(top, file);
    if (
      relative !== "" &&
      relative !== ".." &&
      !relative.startsWith("../") &&
      !path.isAbsolute(relative)
    ) {
      const first = relative.split("/")[0] ?? "";
      if (first.startsWith(".")) {
        return {
          refused: false,
          reason: `a dotfile at the top of ${top} (shells, git and editors run what such files say)`,
        };
      }
    }
  }
  return undefined;
}
