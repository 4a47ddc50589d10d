import { ACTIVE_STATUSES, type ProcessManager, type RunSnapshot } from "acp-process";
import { runTool, YIELD_MS, type ToolDefinition, type ToolOutcome } from "acp-process/tools";
import {
  isInputRequiredResult,
  type CallToolResult,
  type InputRequiredResult,
  type RequestStateCodec,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { boundedAnswer, errorResult, oversizedArgument } from "./answer-bounds.js";
import { messageOf } from "acp-terminal/internal";
import {
  answersFrom,
  askingResult,
  clientTakesElicitation,
  type AskedState,
} from "./elicit-approval.js";
import { CALL_LABEL, createScope, type CallDirectory, type McpCall } from "./mcp-call.js";
import type { ApprovalFlags } from "./policy.js";
import { describeRun, progressReporter } from "./progress.js";
import { refusalMessage, startFailureMessage } from "./refusal.js";
import { declaresTasks, eraOf, task2025, task2026 } from "./tasks/task-methods.js";
import type { TaskStore } from "./tasks/task-store.js";
import { stdinInput } from "./tasks/task-stdin.js";

/** What every call of one server shares. */
export interface CallEnvironment {
  manager: ProcessManager;
  /** The ProcessManager session every call acts in (MCP has no ACP session). */
  sessionId: string;
  policy: ApprovalFlags;
  calls: CallDirectory;
  tasks: TaskStore;
  codec: RequestStateCodec<AskedState>;
  progressIntervalMs: number;
  /** How long a call of a Tasks client runs before it becomes a task (exec: its own `yieldMs`). */
  taskAfterMs: number;
  /** Whether a run's command waits for input on its stdin; a 2026-07-28 task then asks for it. */
  waitsForInput?: (run: RunSnapshot) => Promise<boolean>;
}

/** The cancel functions of the calls in flight, by JSON-RPC id (see `cancelAcrossInstances`). */
export interface InFlight {
  add(id: string | number, cancel: () => void): () => void;
}

type Answer = CallToolResult | InputRequiredResult;

/** How long a task-augmented call waits for its command to pass approval (the hook never waits for a person: this bounds a slow start) before it answers with the task. */
const START_WINDOW_MS = 5000;

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
  const era = eraOf(ctx);
  const taskMode =
    era === "2025"
      ? taskParams
        ? "2025"
        : undefined
      : declaresTasks(server, ctx)
        ? "2026"
        : undefined;
  const call = env.calls.open(clientTakesElicitation(server, ctx), answersFrom(ctx));
  const { manager, sessionId } = env;
  const runsOfCall = (status?: readonly RunSnapshot["status"][]) =>
    manager.list({
      sessionId,
      labels: { [CALL_LABEL]: call.id },
      limit: 500,
      ...(status ? { status } : {}),
    });
  const kill = () =>
    Promise.allSettled(
      runsOfCall(ACTIVE_STATUSES).map((run) => manager.kill(run.id, { sessionId })),
    );
  const cancel = () => void kill();
  ctx.mcpReq.signal.addEventListener("abort", cancel, { once: true });
  const forget = inFlight.add(ctx.mcpReq.id, cancel);
  const token = ctx.mcpReq._meta?.progressToken;
  const progress =
    token === undefined
      ? undefined
      : progressReporter({
          token,
          intervalMs: env.progressIntervalMs,
          manager,
          runs: () => {
            const own = runsOfCall(ACTIVE_STATUSES);
            return own.length > 0 ? own : namedRuns(manager, sessionId, input);
          },
          notify: ctx.mcpReq.notify,
        });
  let detached = false;
  const detach = () => {
    if (!detached) {
      detached = true;
      progress?.stop();
      forget();
      ctx.mcpReq.signal.removeEventListener("abort", cancel);
    }
  };
  // Subscribed before the tool runs, so no start is missed.
  const start = taskMode ? started(manager, call) : undefined;
  // The approval hook finds the call through createScope: for writes and signals, from here; for
  // starts, the provider sets it again from the run's label (a queued start runs from elsewhere).
  const answer = createScope
    .run({ call }, () =>
      runTool(
        tool,
        {
          manager,
          sessionId,
          labels: { [CALL_LABEL]: call.id },
          ...(taskMode ? { awaitEnd: true } : {}),
        },
        input,
      ),
    )
    .then((outcome) => finish(call, outcome, env, runsOfCall, !detached))
    .finally(() => {
      env.calls.close(call);
      detach();
    });
  if (!taskMode) {
    return answer;
  }
  // Approval is decided before the call can become a task (a 2026 question is an input_required
  // answer, which a task cannot give); a 2026 call's yield window counts from its command's start.
  const decided = await settledWithin(answer, START_WINDOW_MS, start);
  const early =
    decided ??
    (taskMode === "2026"
      ? await settledWithin(answer, yieldOf(tool, input, env.taskAfterMs))
      : undefined);
  if (early && (taskMode === "2026" || isInputRequiredResult(early))) {
    return early;
  }
  detach();
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
        cancel: async () => void (await kill()),
        describe: () =>
          runsOfCall(ACTIVE_STATUSES)
            .map((run) => describeRun(manager, run))
            .join("; ") || "finishing",
        ...(taskMode === "2026" && env.waitsForInput
          ? { input: stdinInput(env, () => runsOfCall(ACTIVE_STATUSES), env.waitsForInput) }
          : {}),
      },
      taskMode,
      taskParams?.ttl,
    );
  } catch (error) {
    // No room for another task: the call ends here, with what it started.
    await kill();
    return errorResult("limit_reached", `${messageOf(error)}; the command was stopped`);
  }
  // A task in place of the result. The SDK gives every tools/call answer a `content` (empty here).
  return taskMode === "2025"
    ? { content: [], task: task2025(task) }
    : { content: [], resultType: "task", ...task2026(task, false) };
}

/** The names a tool's input gives a run by: `process` (sessionId), shell (id, run_id), process.* (id, process_id). */
const RUN_ID_FIELDS = ["sessionId", "id", "run_id", "process_id"] as const;

/** The active run a call names (the one a wait waits on), for its progress; none when it names no known run. */
function namedRuns(
  manager: ProcessManager,
  sessionId: string,
  input: Record<string, unknown>,
): RunSnapshot[] {
  for (const field of RUN_ID_FIELDS) {
    const id = input[field];
    if (typeof id === "string") {
      try {
        const run = manager.get(id, { sessionId });
        return ACTIVE_STATUSES.includes(run.status) ? [run] : [];
      } catch {
        return []; // not a run of this server: the tool's own answer says so
      }
    }
  }
  return [];
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

/**
 * The call's answer from the tool's outcome: the approval questions to ask (while the call can
 * still ask them), a refusal or start failure as `isError` (the runs that never started are
 * forgotten: nothing ran, nothing to poll), a tool error, or the result, bounded.
 */
async function finish(
  call: McpCall,
  outcome: ToolOutcome<unknown>,
  env: CallEnvironment,
  runsOfCall: () => RunSnapshot[],
  canAsk: boolean,
): Promise<Answer> {
  const neverStarted = runsOfCall().filter((run) => run.startFailure);
  for (const run of neverStarted) {
    env.manager.remove(run.id, { sessionId: env.sessionId });
  }
  if (call.questions.size > 0) {
    if (canAsk) {
      return askingResult(call, env.codec);
    }
    for (const question of call.questions.values()) {
      call.refuse(question.command, { kind: "call_ended" });
    }
  }
  const refused = call.refusals[0];
  if (refused) {
    return errorResult("not_approved", refusalMessage(refused.command, refused.reason, env.policy));
  }
  const failed = neverStarted[0];
  if (failed) {
    return errorResult(
      failed.startFailure === "denied" ? "not_approved" : "start_failed",
      startFailureMessage(failed),
    );
  }
  if (!outcome.ok) {
    return errorResult(outcome.error.code, `${outcome.error.code}: ${outcome.error.message}`);
  }
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- every tool surface answers with a JSON object (ToolDefinition's Output)
  return boundedAnswer(outcome.result as Record<string, unknown>);
}
