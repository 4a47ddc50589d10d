// acp-terminal/approval: the one approval module. Every surface that asks a person whether an
// agent's command may run (the CLI's TTY, the MCP server's elicitation, a proxy's editor, an
// embedder's dialog) takes from here the policy, what "the same command" is, how a request reads
// (one limit, one escaping table), the flags and the rules, and supplies only the asking: an
// ApprovalAsker. See the README's "Approval" section.

// --- The policy: rules, then a person ---
export { createApprovalPolicy } from "./approval/approval-policy.js";
export type {
  ApprovalAnswer,
  ApprovalAsker,
  ApprovalChoice,
  ApprovalContext,
  ApprovalPolicy,
  ApprovalPolicyOptions,
} from "./approval/approval-policy.js";
export { approveFileWrite } from "./approval/approve-file-write.js";
export type {
  ApprovalRequest,
  AuthorizeCommand,
  AuthorizeFileWrite,
  AuthorizeGrant,
  AuthorizeRequest,
  AuthorizeVerdict,
} from "./host/types.js";

// --- "The same command" ---
export { sameCommandKey } from "./approval/same-command.js";

// --- A request as a person reads it ---
export {
  approvalQuestion,
  describeApprovalRequest,
  MAX_QUESTION_CHARS,
  questionTooLong,
  shortApprovalAction,
} from "./approval/describe-request.js";
export { printable, printableCut } from "./approval/visible-text.js";
/** The name `describeApprovalRequest` had before this module (the same function). */
export { describeAuthorizeRequest } from "./approval/describe-request.js";

// --- The flags (`--yes`, `--allow`, `--allow-anywhere`, `--sandbox`, `--sandbox-network`) ---
export {
  APPROVAL_FLAG_OPTIONS,
  approvalFlagsHelp,
  approvalFlagArgs,
  approvalFlags,
  approvalPolicyOptions,
  describeApprovalFlags,
} from "./approval/approval-flags.js";
export type { ApprovalFlags } from "./approval/approval-flags.js";
export { SANDBOX_WITH_ON } from "./sandbox/sandbox-options.js";

// --- The rules ---
export { matchesAllowPattern, parseAllowPattern } from "./approval/allow-pattern.js";
export type { AllowPattern } from "./approval/allow-pattern.js";
export { confinementProblem } from "./approval/confinement.js";
export { ruleScopeProblem } from "./approval/rule-scope.js";
export { agentCommandVerdict } from "./approval/agent-command.js";
export type { AgentCommand, AgentCommandVerdict } from "./approval/agent-command.js";
