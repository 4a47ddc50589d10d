export { ProcessError, type ProcessErrorCode } from "./errors.js";
export { ManualClock, systemClock, type Clock } from "./clock.js";
export { JOB_TTL_MS, MAX_OUTPUT_CHARS, PENDING_MAX_OUTPUT_CHARS, YIELD_MS, resolveLimits, type ResolvedLimits } from "./config.js";
export {
  NO_EXTENSIONS,
  type ProviderCapabilities,
  type ProviderCreateParams,
  type ProviderExitStatus,
  type ProviderOutput,
  type ProviderOutputOptions,
  type TerminalProvider,
} from "./providers/types.js";
export { LocalTerminalProvider, type LocalProviderOptions, type TerminalHostLike, type TerminalOwner } from "./providers/local.js";
export { processGroupUsage, type ResourceUsage } from "./providers/proc-usage.js";
export { AcpTerminalProvider, type AcpProviderOptions, type AcpRequester } from "./providers/acp.js";
export {
  EXTENSION_KEY,
  EXTENSION_METHODS,
  detectClientTerminalSupport,
  type ClientTerminalSupport,
} from "./providers/acp-capabilities.js";
export { ProcessManager } from "./runs/manager/manager.js";
export type { ReadResult } from "./runs/views/read-page.js";
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
export type { LineView } from "./runs/views/views.js";
export { ACTIVE_STATUSES, FINISHED_STATUSES, isFinished, type RunItem, type RunItemKind, type RunRecord, type RunStatus, type TerminationCause } from "./model/run-record.js";
export { type RunEvent, type RunEventSink, type RunSnapshot, type WatcherSpec } from "./model/run-events.js";
export { MemoryRunStore } from "./store/memory.js";
export { DEFAULT_RETENTION, type ItemPage, type ItemQuery, type RetentionLimits, type RunStore } from "./store/types.js";
export { defineTool, runTool, type BackgroundExitNotice, type ExecPolicy, type ToolContext, type ToolDefinition, type ToolOutcome } from "./tools/types.js";
export { execTool, execInputSchema, type ExecInput, type ExecResult } from "./tools/exec.js";
export { processTool, processInputSchema, type ProcessInput } from "./tools/process.js";
export {
  processRunTool,
  processMonitorTool,
  processKillTool,
  processListTool,
  processLogsTool,
  processWaitTool,
  processTools,
  processState,
  type ProcessState,
} from "./tools/process-api.js";
export { shellTool, shellInputSchema, type ShellInput } from "./tools/shell.js";
export { SqliteRunStore, type SqliteStoreOptions } from "./store/sqlite.js";
export { providerForClient, type ClientProviderOptions } from "./providers/select.js";
export { allTools } from "./tools/all.js";
export { DEFAULT_WATCHER_LIMITS, type WatcherLimits } from "./runs/output/watchers.js";
