import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { clientCapabilities } from "../client-capabilities.js";
import type { TaskStore } from "./task-store.js";
import { isTerminal, type Task } from "./task.js";

/** The Tasks extension of MCP 2026-07-28 (SEP-2663). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** What `tasks/list` answers at most per page. */
const LIST_PAGE = 100;

/** How a task id is quoted in an error: cut, since the client chose it. */
function quoted(taskId: string): string {
  return JSON.stringify(taskId.length > 100 ? `${taskId.slice(0, 100)}…` : taskId);
}

/** A request of the 2026-07-28 revision carries the per-request `_meta` envelope; a 2025 one does not. */
export function eraOf(ctx: ServerContext): Task["era"] {
  return ctx.mcpReq.envelope === undefined ? "2025" : "2026";
}

/** Whether a 2026-07-28 request declares the Tasks extension among its client capabilities. */
export function declaresTasks(server: Server, ctx: ServerContext): boolean {
  return (
    eraOf(ctx) === "2026" &&
    clientCapabilities(server, ctx).extensions?.[TASKS_EXTENSION] !== undefined
  );
}

/** A 2025-11-25 `Task`. A tool result with `isError` is `failed` there (its result is still served). */
export function task2025(task: Task): Record<string, unknown> {
  const failedResult = task.status === "completed" && task.result?.isError === true;
  return {
    taskId: task.taskId,
    status: failedResult ? "failed" : task.status === "input_required" ? "working" : task.status,
    ttl: task.ttlMs,
    createdAt: new Date(task.createdAtMs).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAtMs).toISOString(),
    pollInterval: task.pollIntervalMs,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
  };
}

/** A 2026-07-28 `Task`; `detailed` inlines the result, error or input requests. */
export function task2026(task: Task, detailed: boolean): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: new Date(task.createdAtMs).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAtMs).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    // The result as a direct 2026-07-28 tools/call answer carries it (the SDK adds resultType there).
    ...(detailed && task.status === "completed" && task.result
      ? { result: { resultType: "complete", ...task.result } }
      : {}),
    ...(detailed && task.status === "failed" && task.error ? { error: task.error } : {}),
    ...(detailed && task.status === "input_required" && task.inputRequests
      ? { inputRequests: task.inputRequests }
      : {}),
  };
}

const taskIdParams = z.looseObject({ taskId: z.string() });

export interface TaskMethodsOptions {
  store: TaskStore;
}

/**
 * Serves the task methods on one server instance: `tasks/get` and `tasks/cancel` in both
 * revisions, `tasks/result` and `tasks/list` for 2025-11-25 (the SDK answers them -32601 on
 * 2026-07-28, which removed them), `tasks/update` for 2026-07-28. A task is seen only by requests
 * of the revision that created it.
 */
export function serveTaskMethods(server: Server, options: TaskMethodsOptions): void {
  const methods = new TaskMethods(server, options.store);
  server.setRequestHandler("tasks/get", { params: taskIdParams }, (params, ctx) =>
    methods.get(params.taskId, ctx),
  );
  server.setRequestHandler("tasks/cancel", { params: taskIdParams }, (params, ctx) =>
    methods.cancel(params.taskId, ctx),
  );
  server.setRequestHandler("tasks/result", { params: taskIdParams }, (params, ctx) =>
    methods.result(params.taskId, ctx),
  );
  server.setRequestHandler(
    "tasks/list",
    { params: z.looseObject({ cursor: z.string().optional() }) },
    (params, ctx) => methods.list(params.cursor, ctx),
  );
  server.setRequestHandler(
    "tasks/update",
    // The SDK lifts `inputResponses` out of the params into ctx.mcpReq.inputResponses (as for MRTR).
    { params: taskIdParams },
    (params, ctx) => methods.update(params.taskId, ctx),
  );
}

/** The answers of the task methods, over one server's task store. */
class TaskMethods {
  constructor(
    private readonly server: Server,
    private readonly store: TaskStore,
  ) {}

  async get(taskId: string, ctx: ServerContext) {
    if (eraOf(ctx) === "2026") {
      await this.store.refreshInput(this.find(taskId, ctx).taskId);
    }
    const task = this.find(taskId, ctx);
    return eraOf(ctx) === "2025"
      ? task2025(task)
      : { resultType: "complete" as const, ...task2026(task, true) };
  }

  async cancel(taskId: string, ctx: ServerContext) {
    const task = this.find(taskId, ctx);
    if (eraOf(ctx) === "2025") {
      if (isTerminal(task.status)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Task ${quoted(task.taskId)} already ended (${task.status}): there is nothing to cancel`,
        );
      }
      return task2025((await this.store.cancel(task.taskId, "2025")) ?? task);
    }
    await this.store.cancel(task.taskId, "2026");
    return { resultType: "complete" as const };
  }

  async result(taskId: string, ctx: ServerContext) {
    this.find(taskId, ctx);
    await this.store.settled(taskId, ctx.mcpReq.signal);
    const task = this.find(taskId, ctx);
    if (task.status === "completed" && task.result) {
      return { ...task.result, _meta: { [RELATED_TASK_META_KEY]: { taskId: task.taskId } } };
    }
    if (task.status === "failed" && task.error) {
      throw new ProtocolError(task.error.code, task.error.message);
    }
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task ${quoted(task.taskId)} has no result: it is ${task.status}`,
    );
  }

  list(cursorText: string | undefined, ctx: ServerContext) {
    const cursor = cursorText === undefined ? 0 : Number(cursorText);
    if (!Number.isSafeInteger(cursor) || cursor < 0) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid tasks/list cursor");
    }
    const page = this.store.list(eraOf(ctx), cursor, LIST_PAGE);
    return {
      tasks: page.tasks.map(task2025),
      ...(page.next !== undefined ? { nextCursor: String(page.next) } : {}),
    };
  }

  async update(taskId: string, ctx: ServerContext) {
    if (eraOf(ctx) === "2025") {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        "tasks/update is a method of MCP 2026-07-28; a 2025-11-25 client sends input with the tools",
      );
    }
    const task = this.find(taskId, ctx);
    await this.store.respond(task.taskId, ctx.mcpReq.inputResponses ?? {});
    return { resultType: "complete" as const };
  }

  /** The task a request names, seen from its revision; a 2026 request must declare the extension. */
  private find(taskId: string, ctx: ServerContext): Task {
    const era = eraOf(ctx);
    if (era === "2026" && !declaresTasks(this.server, ctx)) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `tasks/* needs the ${TASKS_EXTENSION} extension among the request's client capabilities`,
      );
    }
    const task = this.store.get(taskId, era);
    if (!task) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `No task ${quoted(taskId)}: it never existed on this server, or it ended more than its ttl ago`,
      );
    }
    return task;
  }
}
