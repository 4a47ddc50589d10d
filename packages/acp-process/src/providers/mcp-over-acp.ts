import type { McpOverAcpCaller } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { McpToolCall } from "./mcp-tools.js";

/** The parts of an MCP `tools/call` result this caller reads. */
const toolResultSchema = z.looseObject({
  isError: z.boolean().optional(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
});

type CallerContext = Parameters<McpOverAcpCaller["request"]>[0];

/**
 * `McpToolCall` over a client's MCP server declared in `session/new` as `{type: "acp", serverId}`,
 * through the ACP SDK's `McpOverAcpCaller` (`mcp/message`). Inner MCP errors and `isError`
 * answers reject with their message.
 */
export function mcpOverAcpTools(
  caller: McpOverAcpCaller,
  connection: CallerContext,
  serverId: string,
): McpToolCall {
  return async (name, args) => {
    const outcome = await caller.request(connection, serverId, "tools/call", {
      name,
      arguments: args,
    });
    if ("error" in outcome) {
      throw new Error(`MCP ${name}: ${outcome.error.message} (code ${outcome.error.code})`);
    }
    const parsed = toolResultSchema.safeParse(outcome.result);
    if (!parsed.success) {
      throw new Error(
        `MCP ${name}: the answer is not a tool result (${z.prettifyError(parsed.error)})`,
      );
    }
    const result = parsed.data;
    if (result.isError) {
      throw new Error(
        `MCP ${name}: ${result.content?.map((block) => block.text ?? "").join(" ") || "the tool failed"}`,
      );
    }
    if (!result.structuredContent) {
      throw new Error(`MCP ${name}: the answer has no structuredContent`);
    }
    return result.structuredContent;
  };
}
