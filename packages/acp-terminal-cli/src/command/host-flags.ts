import { SANDBOX_WITH_ON } from "acp-terminal/approval";
import { approvalFlags, type ApprovalFlags } from "acp-terminal/approval";
import { executorTarget } from "./executor-target.js";
import { terminalLimits, type TerminalLimits } from "./terminal-limits.js";

/** The flags of the host that serves terminals, which `run` and `proxy` share. */
export interface HostFlags extends TerminalLimits {
  approval: ApprovalFlags;
  /** `--on`: present only when not this machine. */
  on?: string;
  noContain: boolean;
  pidNamespace: boolean;
}

/**
 * The host's flags checked together, or the message of the first that is wrong: the approval
 * flags, `--no-contain` against `--pid-namespace`, the terminal limits, and `--on` (read against
 * `workspace`, the directory commands start in; no sandbox elsewhere).
 */
export function hostFlags(
  values: {
    yes: boolean;
    allow: string[];
    sandbox: string;
    "sandbox-network": boolean;
    "no-contain": boolean;
    "pid-namespace": boolean;
    "max-terminals"?: string | undefined;
    "max-total-terminals"?: string | undefined;
    on?: string | undefined;
  },
  workspace: string,
): HostFlags | string {
  const approval = approvalFlags(values);
  if (typeof approval === "string") {
    return approval;
  }
  if (values["no-contain"] && values["pid-namespace"]) {
    return "--no-contain and --pid-namespace exclude each other: give one";
  }
  const limits = terminalLimits(values["max-terminals"], values["max-total-terminals"]);
  if (typeof limits === "string") {
    return limits;
  }
  const on = values.on === undefined ? undefined : executorTarget(values.on, workspace);
  if (on?.startsWith("Invalid")) {
    return on;
  }
  if (on !== undefined && on !== "local" && approval.sandbox !== "off") {
    return SANDBOX_WITH_ON;
  }
  return {
    approval,
    ...limits,
    ...(on !== undefined && on !== "local" ? { on } : {}),
    noContain: values["no-contain"],
    pidNamespace: values["pid-namespace"],
  };
}
