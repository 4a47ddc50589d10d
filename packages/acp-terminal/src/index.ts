// acp-terminal: what an embedder needs to run terminals for an ACP agent: the TerminalHost, its
// ACP binding and capabilities, and an approval policy. Everything else is on its own subpath:
// acp-terminal/approval (the whole approval module: policy, questions, flags, rules; what is
// exported below under "Approval" is a part of it, kept here for embedders that import it so),
// acp-terminal/protocol (the wire extension: names, zod schemas, capability reader),
// acp-terminal/keys (key names → bytes for write), acp-terminal/internal (what this repository's
// other packages borrow; not stable). The conformance agent is the acp-terminal-conformance
// package, the CLI the acp-terminal-cli package. The README's entry-point table states how many
// names each entry point exports; `pnpm lint` checks it (scripts/count-exports.mjs --check).

// --- TerminalHost ---
export { TerminalHost } from "./host/terminal-host.js";
export { TerminalError } from "./core/errors.js";
export type { TerminalErrorCode } from "./core/errors.js";
export type {
  ApprovalRequest,
  AuthorizeCommand,
  AuthorizeFileWrite,
  AuthorizeGrant,
  AuthorizeRequest,
  AuthorizeVerdict,
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
  TerminalNoticeEvent,
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
export { DEFAULT_PTY_SIZE } from "./core/pty-size.js";
export { KILL_GRACE_MS } from "./terminate/kill.js";
export type { OutputReader } from "./output/output-buffer.js";
export { containmentFor, describeContainment } from "./contain/describe.js";

// --- Where commands run (the `on` option): executors ---
export { checkExecutorTarget, parseExecutorTarget } from "./executors/target.js";
export type { ExecutorTarget } from "./executors/target.js";
export { SshExecutor } from "./executors/ssh.js";
export type { SshExecutorOptions } from "./executors/ssh.js";
export { DockerExecutor, DockerImageExecutor } from "./executors/docker.js";
export type { DockerExecutorOptions, DockerImageOptions } from "./executors/docker.js";
export type {
  ExecutedProcess,
  Executor,
  ExecutorSpawnRequest,
  ProcessGroup,
} from "./executors/types.js";

// --- Approval (the `authorize` hook): the names embedders had here; all of it is acp-terminal/approval ---
export {
  approveFileWrite,
  createApprovalPolicy,
  matchesAllowPattern,
  parseAllowPattern,
  describeAuthorizeRequest,
  MAX_QUESTION_CHARS,
  printable,
} from "./approval.js";
export type {
  ApprovalAnswer,
  ApprovalAsker,
  ApprovalContext,
  ApprovalPolicy,
  ApprovalPolicyOptions,
  AllowPattern,
} from "./approval.js";

// --- Sandbox (TerminalHostOptions.sandbox) ---
export { describeSandbox } from "./sandbox/sandbox.js";
export type { SandboxStatus } from "./sandbox/sandbox.js";
export type { SandboxMode, SandboxOptions } from "./sandbox/sandbox-options.js";

// --- ACP binding ---
export { bindTerminalHost } from "./rpc/bind.js";
export type { BindOptions, TerminalBinding } from "./rpc/bind.js";
export type { TerminalHostPort } from "./rpc/host-port.js";
export { terminalClientCapabilities } from "./rpc/capabilities.js";
export type { TerminalClientCapabilities } from "./rpc/capabilities.js";
