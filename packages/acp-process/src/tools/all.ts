import { execTool } from "./exec.js";
import { processTool } from "./process.js";
import { processTools } from "./process-api.js";
import { shellTool } from "./shell.js";
import { unifiedExecTools } from "./unified-exec.js";
import type { ToolDefinition } from "./types.js";

/** Every tool surface, for registries that list them by name (`exec`, `process`, `process.run`, ..., `shell`, `exec_command`, `write_stdin`, `read_output`). */
export const allTools: readonly ToolDefinition[] = [
  execTool,
  processTool,
  ...processTools,
  shellTool,
  ...unifiedExecTools,
] as readonly ToolDefinition[];
