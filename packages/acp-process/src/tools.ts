// acp-process/tools: the model tool surfaces (exec/process, shell, process.*), their zod input
// schemas, and the defaults and environment overrides of the exec tool design.
export {
  defineTool,
  runTool,
  type BackgroundExitNotice,
  type ExecPolicy,
  type ToolContext,
  type ToolDefinition,
  type ToolOutcome,
} from "./tools/core/types.js";
export {
  execTool,
  execInputSchema,
  type ExecInput,
  type ExecResult,
} from "./tools/exec-process/exec.js";
export {
  processTool,
  processInputSchema,
  type ProcessInput,
} from "./tools/exec-process/process.js";
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
} from "./tools/process-api/process-api.js";
export { shellTool, shellInputSchema, type ShellInput } from "./tools/shell/shell.js";
export {
  execCommandTool,
  writeStdinTool,
  readOutputTool,
  unifiedExecTools,
  execCommandInputSchema,
  writeStdinInputSchema,
  readOutputInputSchema,
  UNIFIED_EXEC_ENV,
} from "./tools/unified-exec/unified-exec.js";
export {
  BYTES_PER_TOKEN,
  DEFAULT_MAX_OUTPUT_TOKENS,
  MAX_OUTPUT_TOKENS,
  tokensOf,
  type Keep,
} from "./tools/core/token-budget.js";
export { allTools } from "./tools/all.js";
export {
  JOB_TTL_MS,
  MAX_OUTPUT_CHARS,
  PENDING_MAX_OUTPUT_CHARS,
  YIELD_MS,
  resolveLimits,
  type ResolvedLimits,
} from "./base/config.js";
