import { ACTIVE_STATUSES, type ProcessManager } from "acp-process";
import { YIELD_MS, type ToolDefinition } from "acp-process/tools";
import {
  isInputRequiredResult,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { errorResult, oversizedArgument } from "./answer-bounds.js";
import { messageOf } from "acp-terminal/internal";
import { CALL_LABEL, type McpCall } from "./mcp-call.js";
import { describeRun } from "./progress.js";
import { RunningCall, type Answer, type CallEnvironment, type InFlight } from "./running-call.js";
import { declaresTasks, eraOf, task2025, task2026 } from "./tasks/task-methods.js";
import { stdinInput } from "./tasks/task-stdin.js";

export type { CallEnvironment, InFlight } from "./running-call.js";

/** How long a task-augmented call waits for its command to pass approval (the hook never waits for a person: this bounds a slow start) before it answers with the task. */
const START_WINDOW_MS = 5000;

/** The Tasks era a call is answered in: a 2025-11-25 client that asked for a task, a 2026-07-28 client that declared the extension, or none (a direct answer). */
type TaskMode = "2025" | "2026" | undefined;

/**
 * One `tools/call`: runs the tool, and answers with its result (bounded), an `isError` result
 * (refused, failed to start, invalid), an `input_required` result that asks the client's user to
 * approve a command (answered by the client's retry), or a task: a 2025-11-25 client that asked
 * for one gets it once the command has started; a client that declared the 2026-07-28 Tasks
 * extension gets one when the call outlives its yield. The task then settles with the answer the
 * call would have given directly.
 */
export async function callTool(
  server: Server,
  tool: ToolDefinition,
  input: Record<string, unknown>,
  ctx: ServerContext,
  env: CallEnvironment,
  inFlight: InFlight,
  taskParams: { ttl?: number | undefined } | undefined,
): Promise<Answer> {
  const oversized = oversizedArgument(input);
  if (oversized) {
    return errorResult("invalid_params", `Invalid ${tool.name} arguments: ${oversized}`);
  }
  const taskMode = taskModeOf(server, ctx, taskParams);
  const running = new RunningCall(server, ctx, env, inFlight, input);
  return taskMode
    ? taskAnswer(running, tool, input, env, taskMode, taskParams?.ttl)
    : running.answer(tool, input, false);
}

function taskModeOf(
  server: Server,
  ctx: ServerContext,
  taskParams: { ttl?: number | undefined } | undefined,
): TaskMode {
  if (eraOf(ctx) === "2025") {
    return taskParams ? "2025" : undefined;
  }
  return declaresTasks(server, ctx) ? "2026" : undefined;
}

/**
 * The answer of a call that may become a task. Approval is decided before the call can become a
 * task (a 2026 question is an input_required answer, which a task cannot give); a 2026 call's
 * yield window counts from its command's start. An answer given within those windows is the
 * direct answer (a 2025 client gets one only to be asked for approval); otherwise the call
 * detaches and answers with a task that settles with the same answer.
 */
async function taskAnswer(
  running: RunningCall,
  tool: ToolDefinition,
  input: Record<string, unknown>,
  env: CallEnvironment,
  taskMode: "2025" | "2026",
  ttl: number | undefined,
): Promise<Answer> {
  // Subscribed before the tool runs, so no start is missed.
  const start = started(env.manager, running.call);
  const answer = running.answer(tool, input, true);
  const decided = await settledWithin(answer, START_WINDOW_MS, start);
  const early =
    decided ??
    (taskMode === "2026"
      ? await settledWithin(answer, yieldOf(tool, input, env.taskAfterMs))
      : undefined);
  if (early && (taskMode === "2026" || isInputRequiredResult(early))) {
    return early;
  }
  running.detach();
  const active = () => running.runs(ACTIVE_STATUSES);
  let task;
  try {
    task = env.tasks.create(
      {
        result: answer.then((result) =>
          isInputRequiredResult(result)
            ? errorResult(
                "not_approved",
                "Not run: approval was needed after the call became a task.",
              )
            : result,
        ),
        cancel: async () => void (await running.kill()),
        describe: () =>
          active()
            .map((run) => describeRun(env.manager, run))
            .join("; ") || "finishing",
        ...(taskMode === "2026" && env.waitsForInput
          ? { input: stdinInput(env, active, env.waitsForInput) }
          : {}),
      },
      taskMode,
      ttl,
    );
  } catch (error) {
    // No room for another task: the call ends here, with what it started.
    await running.kill();
    return errorResult("limit_reached", `${messageOf(error)}; the command was stopped`);
  }
  // A task in place of the result. The SDK gives every tools/call answer a `content` (empty here).
  return taskMode === "2025"
    ? { content: [], task: task2025(task) }
    : { content: [], resultType: "task", ...task2026(task, false) };
}

/** exec's own `yieldMs` (clamped as exec clamps it), else the server's. */
function yieldOf(tool: ToolDefinition, input: Record<string, unknown>, fallbackMs: number): number {
  const asked = input["yieldMs"];
  if (tool.name === "exec" && typeof asked === "number" && Number.isFinite(asked)) {
    return Math.min(Math.max(asked, YIELD_MS.min), YIELD_MS.max);
  }
  return fallbackMs;
}

/**
 * The value of `promise` if it settles within `ms` (and before `sooner`, when given), else
 * undefined (it keeps going).
 */
async function settledWithin<T>(
  promise: Promise<T>,
  ms: number,
  sooner?: { done: Promise<void>; stop(): void },
): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([
      promise,
      late,
      ...(sooner ? [sooner.done.then(() => undefined)] : []),
    ]);
  } finally {
    clearTimeout(timer);
    sooner?.stop();
  }
}

/** Resolves once a run of the call has started (or waits in the queue): its approval is decided. */
function started(manager: ProcessManager, call: McpCall): { done: Promise<void>; stop(): void } {
  let stop = () => {};
  const done = new Promise<void>((resolve) => {
    stop = manager.subscribe((event) => {
      if (
        event.type === "status" &&
        event.run.labels[CALL_LABEL] === call.id &&
        event.run.status !== "failed"
      ) {
        resolve();
      }
    });
  });
  return { done, stop: () => stop() };
}
