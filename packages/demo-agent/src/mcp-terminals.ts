import type { McpOverAcpCaller, McpServerAcpDeclaration } from "@agentclientprotocol/sdk/unstable";
import { detectClientTerminalSupport, mcpOverAcpTools, type McpToolCall } from "acp-process";
import { z } from "zod";
import { reportError } from "./report-error.js";

/** The part of an MCP `tools/list` result read here: the tool names. */
const toolListSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
});

/** The tools a client's MCP server must list to serve as terminals (`acp-terminal mcp`'s default surface). */
const TERMINAL_TOOLS = ["exec", "process"];

/** The connection an MCP-over-ACP request goes through (the v1 or the v2 SDK's `AgentContext`). */
type CallerContext = Parameters<McpOverAcpCaller["request"]>[0];

/**
 * The first MCP server the client declared over ACP whose tools are a terminal server's, when the
 * client has no terminal capability of its own (v1 terminals come first). Undefined otherwise.
 */
export async function findMcpTerminals(
  mcp: McpOverAcpCaller,
  client: CallerContext,
  clientCapabilities: unknown,
  declared: McpServerAcpDeclaration[],
): Promise<{ name: string; call: McpToolCall } | undefined> {
  if (detectClientTerminalSupport(clientCapabilities).terminal) {
    return undefined;
  }
  for (const server of declared) {
    try {
      const outcome = await mcp.request(client, server.serverId, "tools/list", {});
      const names =
        "result" in outcome
          ? (toolListSchema.safeParse(outcome.result).data?.tools ?? []).map((tool) => tool.name)
          : [];
      if (TERMINAL_TOOLS.every((name) => names.includes(name))) {
        return { name: server.name, call: mcpOverAcpTools(mcp, client, server.serverId) };
      }
    } catch (error) {
      reportError(`listing the tools of the client's MCP server ${server.name}`, error);
    }
  }
  return undefined;
}
