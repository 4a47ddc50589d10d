import { ACTIVE_STATUSES, type ProcessManager } from "acp-process";
import { runTool, type ToolContext, type ToolDefinition } from "acp-process/tools";
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { progressReporter } from "./progress.js";

export interface ToolServerOptions {
  /** Served as they are: MCP name = `functionName` (`process_run`), the tool's description and JSON Schema. */
  tools: readonly ToolDefinition[];
  manager: ProcessManager;
  /** The ProcessManager session every call acts in (one per server: MCP has no ACP session). */
  sessionId: string;
  /** How often a call with a progressToken reports progress. */
  progressIntervalMs: number;
  version: string;
  /** Added to `initialize`'s instructions: where commands run and what the policy allows. */
  instructions: string;
  /**
   * Stateless HTTP: a 2025-era client's `notifications/cancelled` arrives in its own POST, served
   * by a fresh instance that never saw the call. With this set, every instance looks the request id
   * up among the calls in flight on any instance, and cancels the call when exactly one has it
   * (two clients using the same id at once cannot be told apart: then nothing is cancelled).
   */
  cancelAcrossInstances?: boolean;
}

/** The label that ties a run to the MCP request that started it, so cancelling the request kills it. */
const CALL_LABEL = "mcpCall";

/**
 * An MCP server factory over acp-process tools. Each instance is cheap (one per stdio connection,
 * one per HTTP request); the ProcessManager behind them is shared, so a run started by one request
 * is polled by the next.
 */
export function toolServerFactory(options: ToolServerOptions): () => Server {
  const byName = new Map(options.tools.map((tool) => [tool.functionName, tool]));
  const inFlight = new InFlightCalls();
  let calls = 0;
  return () => {
    const server = new Server(
      { name: "acp-terminal", version: options.version },
      { capabilities: { tools: {} }, instructions: options.instructions },
    );
    server.setRequestHandler("tools/list", () => ({
      tools: options.tools.map((tool) => ({
        name: tool.functionName,
        description: tool.description,
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- every tool's jsonSchema is z.toJSONSchema of a zod object, so its type is "object"
        inputSchema: tool.jsonSchema as { type: "object" },
      })),
    }));
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const tool = byName.get(request.params.name);
      if (!tool) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool ${JSON.stringify(request.params.name)}: this server has ${[...byName.keys()].join(", ")}`,
        );
      }
      const call = `${++calls}`;
      const result = await callTool(
        tool,
        options,
        call,
        request.params.arguments ?? {},
        ctx,
        inFlight,
      );
      return server.projectCallToolResult(result, undefined);
    });
    if (options.cancelAcrossInstances) {
      server.setNotificationHandler("notifications/cancelled", (notification) => {
        if (notification.params.requestId !== undefined) {
          inFlight.cancel(notification.params.requestId);
        }
      });
    }
    return server;
  };
}

/** Cancel functions of the calls running now, by JSON-RPC request id. */
class InFlightCalls {
  private readonly byId = new Map<string, Set<() => void>>();

  add(id: string | number, cancel: () => void): () => void {
    const key = String(id);
    const set = this.byId.get(key) ?? new Set();
    this.byId.set(key, set.add(cancel));
    return () => {
      set.delete(cancel);
      if (set.size === 0) {
        this.byId.delete(key);
      }
    };
  }

  cancel(id: string | number): void {
    const set = this.byId.get(String(id));
    if (set?.size === 1) {
      for (const cancel of set) {
        cancel();
      }
    }
  }
}

async function callTool(
  tool: ToolDefinition,
  options: ToolServerOptions,
  call: string,
  input: unknown,
  ctx: ServerContext,
  inFlight: InFlightCalls,
): Promise<CallToolResult> {
  const { manager, sessionId } = options;
  const runsOfCall = () =>
    // The live runs this call started, however many other runs the session has.
    manager.list({
      sessionId,
      status: ACTIVE_STATUSES,
      labels: { [CALL_LABEL]: call },
      limit: 500,
    });
  // MCP cancellation (notifications/cancelled, or an HTTP client going away) kills what this call started.
  const cancel = () => {
    for (const run of runsOfCall()) {
      manager.kill(run.id, { sessionId }).catch(() => undefined /* finished meanwhile */);
    }
  };
  ctx.mcpReq.signal.addEventListener("abort", cancel, { once: true });
  const forget = inFlight.add(ctx.mcpReq.id, cancel);
  const token = ctx.mcpReq._meta?.progressToken;
  const progress =
    token === undefined
      ? undefined
      : progressReporter({
          token,
          intervalMs: options.progressIntervalMs,
          manager,
          runs: runsOfCall,
          notify: ctx.mcpReq.notify,
        });
  const context: ToolContext = { manager, sessionId, labels: { [CALL_LABEL]: call } };
  try {
    const outcome = await runTool(tool, context, input);
    if (!outcome.ok) {
      return {
        isError: true,
        content: [{ type: "text", text: `${outcome.error.code}: ${outcome.error.message}` }],
        structuredContent: { error: outcome.error },
      };
    }
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- every tool surface answers with a JSON object (ToolDefinition's Output)
    const structured = outcome.result as Record<string, unknown>;
    return {
      content: [{ type: "text", text: JSON.stringify(structured) }],
      structuredContent: structured,
    };
  } finally {
    progress?.stop();
    forget();
    ctx.mcpReq.signal.removeEventListener("abort", cancel);
  }
}
