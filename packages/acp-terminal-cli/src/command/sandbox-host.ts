import type { SandboxOptions } from "acp-terminal";
import type { ApprovalFlags } from "acp-terminal/approval";
import { bubblewrapSupport } from "acp-terminal/internal";

/** The TerminalHost `sandbox` option for the run's flags: the workspace is the session's cwd. */
export function hostSandbox(approval: ApprovalFlags, cwd: string): SandboxOptions {
  return { mode: approval.sandbox, workspace: cwd, network: approval.sandboxNetwork };
}

/**
 * Why the sandbox asked for cannot be had (a usage error: the run does not start, rather than
 * run commands outside a sandbox it was told to use), or undefined.
 */
export function sandboxProblem(approval: ApprovalFlags): string | undefined {
  if (approval.sandbox === "off") {
    return undefined;
  }
  const support = bubblewrapSupport();
  return support.available
    ? undefined
    : `--sandbox ${approval.sandbox} cannot be had here: ${support.reason}. Nothing was started; pass --sandbox off to run commands without a sandbox`;
}
