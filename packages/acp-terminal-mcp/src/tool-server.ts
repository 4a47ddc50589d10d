import { randomBytes } from "node:crypto";
import type { ProcessManager, RunSnapshot } from "acp-process";
import type { ToolDefinition } from "acp-process/tools";
import {
  createRequestStateCodec,
  isInputRequiredResult,
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from "@modelcontextprotocol/server";
import { callTool, type CallEnvironment } from "./call-tool.js";
import type { AskedState } from "./elicit-approval.js";
import { CallDirectory } from "./mcp-call.js";
import type { ApprovalFlags } from "./policy.js";
import { serveTaskMethods, TASKS_EXTENSION } from "./tasks/task-methods.js";
import { TaskStore } from "./tasks/task-store.js";

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
  /** The flags' policy, named in refusals. Default: nothing is allowed without asking. */
  policy?: ApprovalFlags;
  /** The calls in flight, shared with the approval hook (`elicitationAsker`). Default: a new one. */
  calls?: CallDirectory;
  /** How long a call of a Tasks client runs before it becomes a task (exec: its `yieldMs`). Default 10000. */
  taskAfterMs?: number;
  /**
   * Whether a run's command waits for input on its stdin (see `waitsOnStdin`): a 2026-07-28 task
   * then asks the client for it. Without it, tasks never ask.
   */
  waitsForInput?: (run: RunSnapshot) => Promise<boolean>;
  /**
   * Stateless HTTP: a 2025-era client's `notifications/cancelled` arrives in its own POST, served
   * by a fresh instance that never saw the call. With this set, every instance looks the request id
   * up among the calls in flight on any instance, and cancels the call when exactly one has it
   * (two clients using the same id at once cannot be told apart: then nothing is cancelled).
   */
  cancelAcrossInstances?: boolean;
}

export interface ToolServerFactory {
  (): Server;
  /** The tasks every instance serves; `dispose` cancels those still working. */
  readonly tasks: TaskStore;
}

/**
 * An MCP server factory over acp-process tools. Each instance is cheap (one per stdio connection,
 * one per HTTP request); the ProcessManager, the calls in flight and the tasks behind them are
 * shared, so a run started by one request is polled, and a task followed, by the next.
 */
export function toolServerFactory(options: ToolServerOptions): ToolServerFactory {
  const byName = new Map(options.tools.map((tool) => [tool.functionName, tool]));
  const inFlight = new InFlightCalls();
  const tasks = new TaskStore();
  // requestState round-trips through the client: signed, so a retry carries only answers to questions this server asked.
  const codec = createRequestStateCodec<AskedState>({ key: randomBytes(32), ttlSeconds: 3600 });
  const env = callEnvironment(options, tasks, codec);
  const factory = () => {
    const server = new Server(
      { name: "acp-terminal", version: options.version },
      {
        capabilities: {
          tools: {},
          // 2025-11-25 task-augmented tools/call, and the 2026-07-28 Tasks extension.
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
          extensions: { [TASKS_EXTENSION]: {} },
        },
        instructions: options.instructions,
        requestState: { verify: codec.verify },
      },
    );
    server.setRequestHandler("tools/list", () => ({
      tools: options.tools.map((tool) => ({
        name: tool.functionName,
        description: tool.description,
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- every tool's jsonSchema is z.toJSONSchema of a zod object, so its type is "object"
        inputSchema: tool.jsonSchema as { type: "object" },
        execution: { taskSupport: "optional" as const },
      })),
    }));
    serveToolCalls(server, byName, env, inFlight);
    serveTaskMethods(server, { store: tasks });
    if (options.cancelAcrossInstances) {
      server.setNotificationHandler("notifications/cancelled", (notification) => {
        if (notification.params.requestId !== undefined) {
          inFlight.cancel(notification.params.requestId);
        }
      });
    }
    return server;
  };
  return Object.assign(factory, { tasks });
}

/** What every call shares: the manager, the policy, the directory of calls, the tasks. */
function callEnvironment(
  options: ToolServerOptions,
  tasks: TaskStore,
  codec: CallEnvironment["codec"],
): CallEnvironment {
  return {
    manager: options.manager,
    sessionId: options.sessionId,
    policy: options.policy ?? {
      yes: false,
      allow: [],
      allowAnywhere: false,
      sandbox: "off",
      sandboxNetwork: false,
    },
    calls: options.calls ?? new CallDirectory(),
    tasks,
    codec,
    progressIntervalMs: options.progressIntervalMs,
    taskAfterMs: options.taskAfterMs ?? 10_000,
    ...(options.waitsForInput ? { waitsForInput: options.waitsForInput } : {}),
  };
}

/** `tools/call`: the named tool runs through callTool; an unknown name is InvalidParams. */
function serveToolCalls(
  server: Server,
  byName: ReadonlyMap<string, ToolDefinition>,
  env: CallEnvironment,
  inFlight: InFlightCalls,
): void {
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      const name = request.params.name;
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name)}: this server has ${[...byName.keys()].join(", ")}`,
      );
    }
    const answer = await callTool(
      server,
      tool,
      request.params.arguments ?? {},
      ctx,
      env,
      inFlight,
      request.params.task,
    );
    // A task or an input_required answer goes out as it is (the SDK checks it against the era).
    if (isInputRequiredResult(answer) || isTask(answer)) {
      return answer;
    }
    return server.projectCallToolResult(answer, undefined);
  });
}

/** A task answered in place of the result (2025-11-25 `{task}`, 2026-07-28 `resultType: "task"`). */
function isTask(answer: CallToolResult): boolean {
  return "task" in answer || answer["resultType"] === "task";
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
