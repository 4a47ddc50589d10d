// --- TerminalHost core (src/host, src/output, src/spawn, src/terminate) ---
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
export { DEFAULT_PTY_SIZE, MAX_PTY_DIMENSION } from "./host/validate.js";
export { KILL_GRACE_MS } from "./terminate/kill.js";
export { createApprovalPolicy } from "./approval/approval-policy.js";
export type { ApprovalAnswer, ApprovalAsker, ApprovalPolicy, ApprovalPolicyOptions } from "./approval/approval-policy.js";
export { matchesAllowPattern, parseAllowPattern } from "./approval/allow-pattern.js";
export type { AllowPattern } from "./approval/allow-pattern.js";
export { describeAuthorizeRequest } from "./approval/describe-request.js";
export { OutputBuffer, type OutputReader } from "./output/output-buffer.js";
export { describeContainment } from "./contain/describe.js";
export { renderPtyText } from "./output/pty-text.js";
// --- end TerminalHost core ---

// --- ACP binding and extensions (src/rpc, src/keys) ---
export { bindTerminalHost } from "./rpc/bind.js";
export type { BindOptions, TerminalBinding } from "./rpc/bind.js";
export type { TerminalHostPort } from "./rpc/host-port.js";
export {
  ACP_TERMINAL_META_KEY,
  ACP_TERMINAL_EXTENSION_VERSION,
  WRITE_METHOD,
  RESIZE_METHOD,
  SIGNAL_METHOD,
  EXTENSION_METHODS,
  readTerminalCapability,
} from "./protocol/extension.js";
export { terminalClientCapabilities } from "./rpc/capabilities.js";
export type { AcpTerminalCapability, ExtensionMethod } from "./protocol/extension.js";
export type { TerminalClientCapabilities } from "./rpc/capabilities.js";
export {
  SUPPORTED_SIGNALS,
  signalNameSchema,
  ptySizeSchema,
  createTerminalMetaSchema,
  killTerminalMetaSchema,
  outputTerminalMetaSchema,
  writeParamsSchema,
  resizeParamsSchema,
  signalParamsSchema,
} from "./protocol/extension.js";
export type {
  SupportedSignal,
  CreateTerminalMeta,
  KillTerminalMeta,
  OutputTerminalMeta,
  WriteParams,
  ResizeParams,
  SignalParams,
  ExtensionResult,
} from "./protocol/extension.js";
export { JSON_RPC_ERROR_CODES, toRequestError } from "./rpc/errors.js";
export { MAX_ERROR_ANSWER_BYTES } from "./rpc/bounded-error.js";
export { encodeKeys, encodeKey, KEY_NAMES, UnknownKeyError } from "./keys/encode-keys.js";
export type { KeyInput } from "./keys/encode-keys.js";
// --- end ACP binding and extensions ---

// --- CLI and conformance agent (src/cli, src/conformance) ---
export { conformanceAgent } from "./conformance/agent.js";
export type { ConformanceAgentOptions } from "./conformance/agent.js";
export type { CheckKind, CheckResult, CheckStatus } from "./conformance/base/check.js";
export type { ConformanceReport, ConformanceSummary } from "./conformance/report.js";
// --- end CLI and conformance agent ---
