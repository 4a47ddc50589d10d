import { isAbsolute } from "node:path";
import { TerminalError } from "../core/errors.js";

/**
 * Where an approved command may write. `read-only`: nowhere but a private `/tmp` of its own;
 * `workspace-write`: the workspace too (its `.git` and that of the cwd's repository excepted); `off`: wherever the user can.
 * Both sandboxed modes have no network unless `network` is asked for.
 */
export type SandboxMode = "read-only" | "workspace-write" | "off";

export const SANDBOX_MODES: readonly SandboxMode[] = ["read-only", "workspace-write", "off"];

export interface SandboxOptions {
  mode: SandboxMode;
  /** The directory `workspace-write` may write to (absolute). Default: the host's cwd, else the process's. */
  workspace?: string;
  /** Let commands reach the network and the local services' sockets. Default false. */
  network?: boolean;
}

export interface ResolvedSandboxOptions {
  mode: SandboxMode;
  workspace: string;
  network: boolean;
}

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === "string" && (SANDBOX_MODES as readonly string[]).includes(value);
}

/** The host's `sandbox` option with defaults filled in; a wrong one is a TerminalError naming it. */
export function resolveSandboxOptions(
  value: SandboxMode | SandboxOptions | undefined,
  hostCwd: string | undefined,
): ResolvedSandboxOptions {
  const workspaceDefault = hostCwd ?? process.cwd();
  if (value === undefined) {
    return { mode: "off", workspace: workspaceDefault, network: true };
  }
  if (isSandboxMode(value)) {
    return { mode: value, workspace: workspaceDefault, network: value === "off" };
  }
  if (typeof value !== "object" || value === null || !isSandboxMode(value.mode)) {
    throw TerminalError.invalidParams(
      "options.sandbox",
      `one of ${SANDBOX_MODES.map((mode) => JSON.stringify(mode)).join(", ")} or { mode, workspace?, network? }`,
      value,
    );
  }
  if (value.network !== undefined && typeof value.network !== "boolean") {
    throw TerminalError.invalidParams("options.sandbox.network", "a boolean", value.network);
  }
  return {
    mode: value.mode,
    workspace: value.workspace === undefined ? workspaceDefault : absolute(value.workspace),
    network: value.mode === "off" || value.network === true,
  };
}

function absolute(workspace: unknown): string {
  if (typeof workspace !== "string" || !isAbsolute(workspace) || workspace.includes("\0")) {
    throw TerminalError.invalidParams("options.sandbox.workspace", "an absolute path", workspace);
  }
  return workspace;
}

/** Why a sandbox cannot go with commands run elsewhere (`on`, `--on`). */
export const SANDBOX_WITH_ON =
  "--sandbox confines commands run on this machine only, and --on runs them elsewhere: pass --sandbox off with --on, and isolate the commands on that side (a docker-image:// container, say)";
