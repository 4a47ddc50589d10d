import {
  createApprovalPolicy,
  parseAllowPattern,
  type ApprovalPolicy as AuthorizeHook,
} from "acp-terminal";
import { messageOf } from "acp-terminal/internal";

/**
 * Which commands the server runs. An MCP stdio server has no TTY to ask on, so nothing runs
 * unless the person who started it said so: `--yes` (every command, stdin write and signal: the
 * word `acp-terminal run` uses) or `--allow PATTERN` (the commands a pattern approves, in
 * `acp-terminal run --allow`'s syntax and with its rules: see acp-terminal's `parseAllowPattern`).
 */
export type ApprovalPolicy =
  { kind: "yes" } | { kind: "allow"; patterns: readonly string[] } | { kind: "deny" };

/** Builds the policy from the flags, or an error message naming the flag and the value. */
export function approvalPolicy(yes: boolean, allow: readonly string[]): ApprovalPolicy | string {
  if (yes) {
    return { kind: "yes" };
  }
  if (allow.length === 0) {
    return { kind: "deny" };
  }
  for (const pattern of allow) {
    try {
      parseAllowPattern(pattern);
    } catch (error) {
      // The same message `acp-terminal run --allow` gives.
      return `Invalid --allow: ${messageOf(error).replace(/^Invalid allow pattern /, "")}`;
    }
  }
  return { kind: "allow", patterns: [...allow] };
}

/**
 * The host's `authorize` hook for the policy: acp-terminal's `createApprovalPolicy`, with no one to
 * ask. So `--allow` approves starting a command a pattern matches (never a command line with
 * shell syntax, never one that sets environment variables), and refuses stdin writes and signals
 * to it, as `acp-terminal run --allow` does without a TTY.
 */
export function authorizeHook(policy: ApprovalPolicy): AuthorizeHook {
  switch (policy.kind) {
    case "yes":
      return createApprovalPolicy({ allowAll: true });
    case "allow":
      return createApprovalPolicy({
        allow: policy.patterns,
        refusal:
          `no --allow pattern of this server (${policy.patterns.join(", ")}) approves it: a pattern approves starting a command, ` +
          "never one whose command line holds shell syntax or that sets environment variables, a stdin write or a signal; " +
          "restart it with a pattern that matches, or with --yes",
      });
    case "deny":
      return createApprovalPolicy({
        refusal:
          "this server runs no command without approval; restart it with --yes (allow every command) or --allow PATTERN",
      });
  }
}

/** How `initialize`'s instructions and the HTTP listening line name the policy in force. */
export function describePolicy(policy: ApprovalPolicy): string {
  switch (policy.kind) {
    case "yes":
      return "every command (--yes)";
    case "allow":
      return `the commands these --allow patterns approve (the syntax of acp-terminal run --allow): ${policy.patterns.join(", ")}`;
    case "deny":
      return "no command (pass --yes or --allow)";
  }
}
