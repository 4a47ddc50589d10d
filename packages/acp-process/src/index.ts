// acp-process: what an embedder needs to run commands through ACP terminals. The other entry
// points: `acp-process/sqlite` (SqliteRunStore; needs better-sqlite3), `acp-process/tools` (the
// model tool surfaces and their zod schemas), `acp-process/provider` (for writing a provider).
export { ProcessManager } from "./runs/manager/manager.js";
export {
  DEFAULT_TUNING,
  type KillOptions,
  type ListRunsQuery,
  type ProcessManagerOptions,
  type ReadQuery,
  type StartRunOptions,
} from "./runs/manager/options.js";
export type { RunTuning } from "./runs/run/run.js";
export type { SchedulerLimits } from "./runs/manager/scheduler.js";
export type { RecoveryPolicy, RecoveryReport } from "./runs/manager/recovery.js";
export { DEFAULT_WATCHER_LIMITS, type WatcherLimits } from "./runs/output/watchers.js";
export type { ReadResult } from "./runs/views/read-page.js";
export type { LineView } from "./runs/views/views.js";
export type { ResolvedLimits } from "./base/config.js";
export {
  DEFAULT_SPILL_QUOTA_BYTES,
  type OutputArchive,
  type OutputSpillOptions,
} from "./runs/spill/output-archive.js";

export {
  ACTIVE_STATUSES,
  FINISHED_STATUSES,
  isFinished,
  totalOutputBytes,
  type ResourceLimits,
  type RunItem,
  type RunItemKind,
  type RunRecord,
  type RunStatus,
  type StartFailure,
  type TerminationCause,
} from "./model/run-record.js";
export type { RunEvent, RunEventSink, RunSnapshot, WatcherSpec } from "./model/run-events.js";
export type { ResourceUsage } from "./providers/proc-usage.js";

export type { ProviderCapabilities, TerminalProvider } from "./providers/types.js";
export {
  LocalTerminalProvider,
  type LocalProviderOptions,
  type TerminalHostLike,
  type TerminalOwner,
} from "./providers/local.js";
export {
  AcpTerminalProvider,
  type AcpProviderOptions,
  type AcpRequester,
} from "./providers/acp.js";
export {
  detectClientTerminalSupport,
  type ClientTerminalSupport,
} from "./providers/acp-capabilities.js";
export { providerForClient, type ClientProviderOptions } from "./providers/select.js";
export {
  loginShellEnvironment,
  SCRUBBED_VARIABLES,
  SECRET_NAME,
  type LoginEnvironmentOptions,
} from "./providers/login-environment.js";

export { MemoryRunStore } from "./store/memory.js";
export {
  DEFAULT_RETENTION,
  type ItemPage,
  type ItemQuery,
  type RetentionLimits,
  type RunStore,
} from "./store/types.js";
export {
  McpToolsProvider,
  type McpToolCall,
  type McpToolsProviderOptions,
} from "./providers/mcp-tools.js";
export { mcpOverAcpTools } from "./providers/mcp-over-acp.js";

export { ProcessError, type ProcessErrorCode } from "./base/errors.js";
export { ManualClock, systemClock, type Clock } from "./base/clock.js";
