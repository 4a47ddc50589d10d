import {
  execTool,
  processTool,
  processTools,
  shellTool,
  unifiedExecTools,
  type ToolDefinition,
} from "acp-process/tools";

export const TOOL_SET_NAMES = ["exec", "process", "shell", "unified"] as const;
export type ToolSetName = (typeof TOOL_SET_NAMES)[number];

/** The tool surfaces `--tools` picks from; each a list of acp-process tools, served as they are. */
export const TOOL_SETS: Readonly<Record<ToolSetName, readonly ToolDefinition[]>> = {
  /** `exec` + `process` (the default). */
  exec: [execTool, processTool] as readonly ToolDefinition[],
  /** `process.run`, `process.monitor`, `process.kill`, `process.list`, `process.logs`. */
  process: processTools as readonly ToolDefinition[],
  /** The shell action API: `shell` with `spawn/poll/log/kill/send_keys`. */
  shell: [shellTool] as readonly ToolDefinition[],
  /** Codex's unified exec: `exec_command`, `write_stdin`, and `read_output` for what a cut left out. */
  unified: unifiedExecTools as readonly ToolDefinition[],
};

export function isToolSetName(name: string): name is ToolSetName {
  return (TOOL_SET_NAMES as readonly string[]).includes(name);
}
