import {
  approvalPolicyOptions,
  createApprovalPolicy,
  describeApprovalFlags,
  type ApprovalFlags,
  type ApprovalPolicy,
} from "acp-terminal";

/**
 * Which commands the server runs, in acp-terminal's vocabulary (`ApprovalFlags`: `--yes`,
 * `--allow`, `--sandbox`, the same flags and rules as `acp-terminal run`). An MCP server has no TTY
 * to ask on, so nothing runs unless the person who started it said so.
 */
export type { ApprovalFlags };

/**
 * The host's `authorize` hook for the flags: acp-terminal's `createApprovalPolicy`, with no one to
 * ask. So `--allow` approves starting a command a pattern matches (never a command line with
 * shell syntax, never one that sets environment variables, git only within its rules), and
 * refuses stdin writes and signals to it, as `acp-terminal run --allow` does without a TTY.
 */
export function authorizeHook(flags: ApprovalFlags): ApprovalPolicy {
  const refusal = flags.yes
    ? undefined
    : flags.allow.length > 0
      ? `no --allow pattern of this server (${flags.allow.join(", ")}) approves it: a pattern approves starting a command, ` +
        "never one whose command line holds shell syntax or that sets environment variables, a stdin write or a signal; " +
        "restart it with a pattern that matches, or with --yes"
      : "this server runs no command without approval; restart it with --yes (allow every command) or --allow PATTERN";
  return createApprovalPolicy(
    approvalPolicyOptions(flags, refusal === undefined ? {} : { refusal }),
  );
}

/** How `initialize`'s instructions and the HTTP listening line name what is allowed. */
export function describePolicy(flags: ApprovalFlags): string {
  return describeApprovalFlags(flags);
}
