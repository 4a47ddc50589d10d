import { execTool } from "./exec-process/exec.js";
import { processTool } from "./exec-process/process.js";
import { processTools } from "./process-api/process-api.js";
import { shellTool } from "./shell/shell.js";
import { unifiedExecTools } from "./unified-exec/unified-exec.js";
import type { ToolDefinition } from "./core/types.js";

/** Every tool surface, for registries that list them by name (`exec`, `process`, `process.run`, ..., `shell`, `exec_command`, `write_stdin`, `read_output`). */
export const allTools: readonly ToolDefinition[] = [
  execTool,
  processTool,
  ...processTools,
  shellTool,
  ...unifiedExecTools,
] as readonly ToolDefinition[];
