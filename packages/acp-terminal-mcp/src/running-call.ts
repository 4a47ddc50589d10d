import { ACTIVE_STATUSES, type ProcessManager, type RunSnapshot } from "acp-process";
import { runTool, type ToolDefinition, type ToolOutcome } from "acp-process/tools";
import type {
  CallToolResult,
  InputRequiredResult,
  RequestStateCodec,
  Server,
  ServerContext,
} from "@modelcontextprotocol/server";
import { boundedAnswer, errorResult } from "./answer-bounds.js";
import {
  answersFrom,
  askingResult,
  clientTakesElicitation,
  type AskedState,
} from "./elicit-approval.js";
import { CALL_LABEL, createScope, type CallDirectory, type McpCall } from "./mcp-call.js";
import type { ApprovalFlags } from "./policy.js";
import { progressReporter } from "./progress.js";
import { refusalMessage, startFailureMessage } from "./refusal.js";
import type { TaskStore } from "./tasks/task-store.js";

export type Answer = CallToolResult | InputRequiredResult;

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

/**
 * One `tools/call` while its tool runs: the McpCall its runs are labelled with, the client's
 * cancellation (an abort, or `notifications/cancelled` through `inFlight`) and its progress
 * notifications. It starts `attached` to the request; `detach()` (when the answer is given, or
 * when the call becomes a task) stops progress and cancellation, once. The McpCall itself is
 * closed when the tool's run settles.
 */
export class RunningCall {
  readonly call: McpCall;
  private state: "attached" | "detached" = "attached";
  private readonly forget: () => void;
  private readonly progress: { stop(): void } | undefined;
  private readonly cancel = () => void this.kill();

  constructor(
    server: Server,
    private readonly ctx: ServerContext,
    private readonly env: CallEnvironment,
    inFlight: InFlight,
    input: Record<string, unknown>,
  ) {
    this.call = env.calls.open(clientTakesElicitation(server, ctx), answersFrom(ctx));
    ctx.mcpReq.signal.addEventListener("abort", this.cancel, { once: true });
    this.forget = inFlight.add(ctx.mcpReq.id, this.cancel);
    const token = ctx.mcpReq._meta?.progressToken;
    this.progress =
      token === undefined
        ? undefined
        : progressReporter({
            token,
            intervalMs: env.progressIntervalMs,
            manager: env.manager,
            runs: () => {
              const own = this.runs(ACTIVE_STATUSES);
              return own.length > 0 ? own : namedRuns(env.manager, env.sessionId, input);
            },
            notify: ctx.mcpReq.notify,
          });
  }

  /** The runs this call started (those in `status` only, when given). */
  runs(status?: readonly RunSnapshot["status"][]): RunSnapshot[] {
    return this.env.manager.list({
      sessionId: this.env.sessionId,
      labels: { [CALL_LABEL]: this.call.id },
      limit: 500,
      ...(status ? { status } : {}),
    });
  }

  /** Kills the call's active runs. */
  kill(): Promise<unknown> {
    const { manager, sessionId } = this.env;
    return Promise.allSettled(
      this.runs(ACTIVE_STATUSES).map((run) => manager.kill(run.id, { sessionId })),
    );
  }

  detach(): void {
    if (this.state === "attached") {
      this.state = "detached";
      this.progress?.stop();
      this.forget();
      this.ctx.mcpReq.signal.removeEventListener("abort", this.cancel);
    }
  }

  /**
   * Runs the tool and gives the call's answer. The approval hook finds the call through
   * createScope: for writes and signals, from here; for starts, the provider sets it again from
   * the run's label (a queued start runs from elsewhere). `awaitEnd` keeps a background start
   * running until its end (a task's result is the run's end).
   */
  answer(tool: ToolDefinition, input: Record<string, unknown>, awaitEnd: boolean): Promise<Answer> {
    const { manager, sessionId } = this.env;
    return createScope
      .run({ call: this.call }, () =>
        runTool(
          tool,
          {
            manager,
            sessionId,
            labels: { [CALL_LABEL]: this.call.id },
            ...(awaitEnd ? { awaitEnd: true } : {}),
          },
          input,
        ),
      )
      .then((outcome) => this.finish(outcome, this.state === "attached"))
      .finally(() => {
        this.env.calls.close(this.call);
        this.detach();
      });
  }

  /**
   * The call's answer from the tool's outcome: the approval questions to ask (while the call can
   * still ask them), a refusal or start failure as `isError` (the runs that never started are
   * forgotten: nothing ran, nothing to poll), a tool error, or the result, bounded.
   */
  private async finish(outcome: ToolOutcome<unknown>, canAsk: boolean): Promise<Answer> {
    const { call, env } = this;
    const neverStarted = this.runs().filter((run) => run.startFailure);
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
      return errorResult(
        "not_approved",
        refusalMessage(refused.command, refused.reason, env.policy),
      );
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
