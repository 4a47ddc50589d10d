import { realpathSync } from "node:fs";
import type { AuthorizeCommand } from "../host/types.js";

/** A path through its symlinks, or undefined when it cannot be resolved. */
function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined; // missing or unreadable: nothing can be said to be inside anything
  }
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === "/" ? dir : `${dir}/`);
}

/**
 * Why a rule does not apply where a command runs, or undefined: rules apply under the session's
 * cwd (the MCP server's: its `--workspace`), both through their symlinks, unless the person said
 * `anywhere` (`--allow-anywhere`). `--allow make` is about this project's Makefile, not that of
 * any directory an agent names as cwd.
 */
export function ruleScopeProblem(
  request: Pick<AuthorizeCommand, "cwd" | "sessionCwd">,
  anywhere: boolean,
): string | undefined {
  if (anywhere) {
    return undefined;
  }
  const scope = real(request.sessionCwd);
  const cwd = real(request.cwd);
  if (scope !== undefined && cwd !== undefined && inside(cwd, scope)) {
    return undefined;
  }
  return `it runs in ${JSON.stringify(request.cwd.slice(0, 300))}, outside the session's directory ${JSON.stringify(request.sessionCwd.slice(0, 300))} where rules apply (--allow-anywhere applies them everywhere)`;
}
