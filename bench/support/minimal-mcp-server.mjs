#!/usr/bin/env node
/**
 * The floor of an MCP server's memory on this machine: the MCP SDK's McpServer over stdio with one
 * tool that runs nothing (`exec`, answering "ok"), its heap sized as `acp-terminal mcp` sizes its
 * own (see acp-terminal-mcp's lean-heap.ts). What `acp-terminal mcp` holds beyond it is its own.
 */
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--semi-space-growth-factor=1");
setFlagsFromString("--heap-growing-percent=20");
const [{ McpServer }, { StdioServerTransport }, z] = await Promise.all([
  import("@modelcontextprotocol/server"),
  import("@modelcontextprotocol/server/stdio"),
  import("zod"),
]);
const server = new McpServer({ name: "minimal", version: "1.0.0" });
server.registerTool("exec", { inputSchema: z.object({ command: z.string() }) }, async () => ({
  content: [{ type: "text", text: "ok" }],
}));
await server.connect(new StdioServerTransport());
