import type { McpIo } from "acp-terminal-mcp/cli";

/**
 * `acp-terminal mcp` is served by the acp-terminal-mcp package (a dependency of this one), loaded
 * only when the command is `mcp`, so `acp-terminal run` does not load the MCP SDK at start-up.
 * The heap is sized for a long-lived server (`leanHeap`) before the server's modules load.
 */
export async function runMcpCommand(argv: string[], io: McpIo): Promise<number> {
  const { leanHeap } = await import("acp-terminal-mcp/lean-heap");
  leanHeap();
  const { mcpMain } = await import("acp-terminal-mcp/cli");
  return mcpMain(argv, io);
}
