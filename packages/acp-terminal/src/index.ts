// acp-terminal: what an embedder needs to run terminals for an ACP agent: the TerminalHost, its
// ACP binding and capabilities, and an approval policy. Everything else is on its own subpath:
// acp-terminal/protocol (the wire extension: names, zod schemas, capability reader),
// acp-terminal/keys (key names → bytes for write), acp-terminal/conformance (the conformance agent).
// The CLI (src/cli) is a program, not part of the library.

// --- TerminalHost ---
export { TerminalHost } from "./host/terminal-host.js";
export { TerminalError } from "./core/errors.js";
export type { TerminalErrorCode } from "./core/errors.js";
export type {
  AuthorizeCommand,
  AuthorizeRequest,
  ContainmentMode,
  CreateTerminalParams,
  EnvVariable,
  ExitStatus,
  OutputOptions,
  PtyOptions,
  ShellMode,
  TerminalCreateEvent,
  TerminalExitEvent,
  TerminalHostEvents,
  TerminalHostOptions,
  TerminalInfo,
  TerminalOutputEvent,
  TerminalWrittenEvent,
  TerminalOutputSnapshot,
  TerminalOwner,
  TerminalReleaseEvent,
  TerminalState,
  WriteOptions,
} from "./host/types.js";
export {
  DEFAULT_EXIT_DRAIN_GRACE_MS,
  DEFAULT_MAX_OUTPUT_BYTE_LIMIT,
  DEFAULT_MAX_PENDING_STDIN_BYTES,
  DEFAULT_MAX_TERMINALS,
  DEFAULT_MAX_TERMINALS_PER_SESSION,
  DEFAULT_OUTPUT_BYTE_LIMIT,
  MESSAGE_SAFE_OUTPUT_BYTE_LIMIT,
} from "./host/options.js";
export { KILL_GRACE_MS } from "./terminate/kill.js";
export type { OutputReader } from "./output/output-buffer.js";
export { containmentFor, describeContainment } from "./contain/describe.js";

// --- Approval (the `authorize` hook) ---
export { createApprovalPolicy } from "./approval/approval-policy.js";
export type {
  ApprovalAnswer,
  ApprovalAsker,
  ApprovalPolicy,
  ApprovalPolicyOptions,
} from "./approval/approval-policy.js";
export { matchesAllowPattern, parseAllowPattern } from "./approval/allow-pattern.js";
export type { AllowPattern } from "./approval/allow-pattern.js";
export { describeAuthorizeRequest } from "./approval/describe-request.js";

// --- ACP binding ---
export { bindTerminalHost } from "./rpc/bind.js";
export type { BindOptions, TerminalBinding } from "./rpc/bind.js";
export type { TerminalHostPort } from "./rpc/host-port.js";
export { terminalClientCapabilities } from "./rpc/capabilities.js";
export type { TerminalClientCapabilities } from "./rpc/capabilities.js";
