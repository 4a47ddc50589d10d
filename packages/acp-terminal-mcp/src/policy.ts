import {
  approvalPolicyOptions,
  createApprovalPolicy,
  describeApprovalFlags,
  type ApprovalAsker,
  type ApprovalFlags,
  type ApprovalPolicy,
  type ApprovalPolicyOptions,
} from "acp-terminal/approval";

/**
 * Which commands the server runs without asking, in acp-terminal's vocabulary (`ApprovalFlags`:
 * `--yes`, `--allow`, `--sandbox`, the same flags and rules as `acp-terminal run`). An MCP server
 * has no TTY: what the person who started it allowed runs, and the rest is asked through the client
 * (MCP elicitation) when it can be, else refused.
 */
export type { ApprovalFlags };

/**
 * The host's `authorize` hook for the flags: acp-terminal's `createApprovalPolicy`. `--yes`
 * allows everything; `--allow` approves starting a command a pattern matches (never a command line
 * with shell syntax, never one that sets environment variables, git only within its rules) and
 * never a stdin write or a signal, as `acp-terminal run --allow` does. What no pattern approves
 * goes to `ask` (the MCP server's is `elicitationAsker`: the person behind the client, when it
 * takes elicitation), else is refused with a reason that names the flags.
 */
export function authorizeHook(
  flags: ApprovalFlags,
  ask?: ApprovalAsker,
  notAsked?: ApprovalPolicyOptions["notAsked"],
): ApprovalPolicy {
  const refusal = flags.yes
    ? undefined
    : flags.allow.length > 0
      ? `no --allow pattern of this server matches it (${flags.allow.join(", ")}), and there is no one to ask; restart the server with a matching --allow, or --yes`
      : "this server runs nothing without approval and there is no one to ask; restart it with --allow PATTERN or --yes";
  return createApprovalPolicy(
    approvalPolicyOptions(flags, {
      ask,
      ...(notAsked === undefined ? {} : { notAsked }),
      ...(refusal === undefined ? {} : { refusal }),
    }),
  );
}

/** How `initialize`'s instructions and the HTTP listening line name what is allowed. */
export function describePolicy(flags: ApprovalFlags): string {
  const asked = flags.yes
    ? ""
    : "; others are asked through the client (elicitation) where it can be, else refused";
  return describeApprovalFlags(flags) + asked;
}
