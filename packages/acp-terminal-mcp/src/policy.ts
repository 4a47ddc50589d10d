import {
  createApprovalPolicy,
  parseAllowPattern,
  type ApprovalAsker,
  type ApprovalPolicy as AuthorizeHook,
} from "acp-terminal";
import { messageOf } from "acp-terminal/internal";

/**
 * Which commands the server runs without asking. An MCP server has no TTY: what the person who
 * started it allowed runs (`--yes`: every command, stdin write and signal, the word `acp-terminal
 * run` uses; `--allow PATTERN`: the commands a pattern approves, in `acp-terminal run --allow`'s
 * syntax and with its rules, see acp-terminal's `parseAllowPattern`), and the rest is asked through
 * the client (MCP elicitation) when it can be, else refused.
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
 * The host's `authorize` hook for the policy: acp-terminal's `createApprovalPolicy`. `--yes`
 * allows everything; `--allow` approves starting a command a pattern matches (never a command line
 * with shell syntax, never one that sets environment variables) and never a stdin write or a
 * signal, as `acp-terminal run --allow` does. What no pattern approves goes to `ask` (the MCP
 * server's is `elicitationAsker`: the person behind the client, when it takes elicitation), else is
 * refused with a reason that names the flags.
 */
export function authorizeHook(policy: ApprovalPolicy, ask?: ApprovalAsker): AuthorizeHook {
  switch (policy.kind) {
    case "yes":
      return createApprovalPolicy({ allowAll: true });
    case "allow":
      return createApprovalPolicy({
        allow: policy.patterns,
        ask,
        refusal: `no --allow pattern of this server matches it (${policy.patterns.join(", ")}), and there is no one to ask; restart the server with a matching --allow, or --yes`,
      });
    case "deny":
      return createApprovalPolicy({
        ask,
        refusal:
          "this server runs nothing without approval and there is no one to ask; restart it with --allow PATTERN or --yes",
      });
  }
}

/** How `initialize`'s instructions and the HTTP listening line name the policy in force. */
export function describePolicy(policy: ApprovalPolicy): string {
  switch (policy.kind) {
    case "yes":
      return "every command (--yes)";
    case "allow":
      return `the commands these --allow patterns approve (the syntax of acp-terminal run --allow): ${policy.patterns.join(", ")}; others are asked through the client (elicitation) where it can be`;
    case "deny":
      return "no command without asking the user through the client (elicitation); none where the client cannot be asked (pass --yes or --allow)";
  }
}
