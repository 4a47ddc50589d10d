import { z } from "zod";
import { isFinished } from "../../model/run-record.js";
import { type RunSnapshot } from "../../model/run-events.js";
import {
  derivedName,
  inputFields,
  noticeFields,
  outputFor,
  processLogHint,
} from "../core/format.js";
import { streamOffset } from "../../model/run-record.js";
import {
  budgetedRange,
  budgetedTail,
  budgetFields,
  budgetInputsCamel,
  budgetOf,
  MARKER_RESERVE_BYTES,
  tokensOf,
  type Budgeted,
  type Omission,
} from "../core/token-budget.js";
import { ProcessError } from "../../base/errors.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import { strictInput } from "../core/strict-input.js";
import { toolState } from "../core/tool-state.js";
import {
  defineTool,
  fromContext,
  type BackgroundExitNotice,
  type ToolContext,
} from "../core/types.js";

/** 30 days, the longest timeout a run accepts. */
const MAX_TIMEOUT_S = 30 * 24 * 3600;
/** Bytes of output a `running` answer shows (the exec design's "short tail"). */
const TAIL_BYTES = 2000;

export const execInputSchema = strictInput({
  command: z.string().min(1).describe("Shell command line to run"),
  workdir: z.string().optional().describe("Absolute working directory (default: the session's)"),
  env: z.record(z.string(), z.string()).optional().describe("Environment variables to add"),
  yieldMs: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "Return with status 'running' if the command takes longer than this (default 10000 ms, env PI_BASH_YIELD_MS; clamped to 10..120000)",
    ),
  background: z.boolean().optional().describe("Start in the background and return at once"),
  timeout: z
    .number()
    .positive()
    .max(MAX_TIMEOUT_S)
    .optional()
    .describe(
      `Kill the command after this many seconds (default: the manager's defaultTimeoutMs, 1800 s unless configured; at most ${MAX_TIMEOUT_S})`,
    ),
  pty: z
    .boolean()
    .optional()
    .describe("Run in a pseudo-terminal (needs a client with the acp-terminal extension)"),
  elevated: z
    .boolean()
    .optional()
    .describe("Run with elevated rights on the host: refused unless the agent's policy allows it"),
  host: z
    .string()
    .min(1)
    .optional()
    .describe("Where to run: refused unless the agent's policy names this host"),
  notifyOnExit: z
    .boolean()
    .optional()
    .describe("When the command ends after going to the background, tell the agent (default true)"),
  ...budgetInputsCamel,
});

export type ExecInput = z.infer<typeof execInputSchema>;

export type ExecResult =
  | {
      status: "running";
      sessionId: string;
      /** The last TAIL_BYTES of output so far; when earlier output is left out, a marker first and `omitted` says what. */
      tail: string;
      note?: string;
      originalBytes?: number;
      originalTokenCount?: number;
      omitted?: Omission;
    }
  | {
      status: "completed" | "failed" | "killed" | "timed_out" | "lost";
      sessionId: string;
      exitCode: number | null;
      signal: string | null;
      durationMs: number | null;
      output: string;
      truncated: boolean;
      error?: string;
      note?: string;
      /** Present when the output was cut: its size before, and what was left out. */
      originalBytes?: number;
      originalTokenCount?: number;
      omitted?: Omission;
    };

/**
 * `exec`: run a command, answer with its output when it finishes within `yieldMs`, otherwise
 * with `{status: "running", sessionId, tail}` and keep it running (see the `process` tool).
 * `sessionId` here is the run id, as in the exec tool design.
 */
export const execTool = defineTool<ExecInput, ExecResult>({
  name: "exec",
  description:
    "Run a shell command. Returns its output when it finishes within yieldMs; otherwise returns status 'running' " +
    "with a sessionId and the output so far: then one process call with action 'wait' blocks until it exits (up to waitMs) " +
    "and returns the rest of the output (poll, log, write, kill also take the sessionId). background: true returns at once.",
  schema: execInputSchema,
  async run(ctx, input) {
    const { manager, sessionId } = ctx;
    refuseUnlessAllowed(ctx, input);
    const request = {
      sessionId,
      command: input.command,
      ...(input.workdir ? { cwd: input.workdir } : {}),
      ...(input.env ? { env: input.env } : {}),
      ...(input.pty ? { pty: true } : {}),
      // Any exec run may go to the background (yieldMs) and then take `process write`, so stdin is
      // open from the start: a command that reads stdin waits for input (and yields) instead of
      // seeing end-of-file. Where the provider cannot write, stdin stays closed (end-of-file).
      stdin: true,
      // Omitted: the manager's defaultTimeoutMs.
      ...(input.timeout !== undefined ? { timeoutMs: Math.round(input.timeout * 1000) } : {}),
      ...fromContext(ctx, "exec"),
    };
    const run = input.background
      ? await manager.start(request)
      : ctx.awaitEnd
        ? await manager.wait((await manager.start(request)).id, { sessionId })
        : (
            await manager.run({
              ...request,
              ...(input.yieldMs !== undefined ? { yieldMs: input.yieldMs } : {}),
            })
          ).run;
    if (!isFinished(run.status)) {
      toolState(manager).markBackground(run.id);
      if (input.notifyOnExit ?? ctx.execPolicy?.notifyOnExit ?? true) {
        notifyOnExit(ctx, run.id);
      }
      const tail = await runningTail(ctx, run.id, budgetOf(input).maxTokens);
      return {
        status: "running",
        sessionId: run.id,
        tail: tail.text,
        ...budgetFields(tail, "camel"),
        ...inputFields(
          run,
          "camel",
          `process ${JSON.stringify({ action: "write", sessionId: run.id, data: "<your answer>\n" })}`,
        ),
        ...(run.status === "queued"
          ? { note: "queued: waiting for a free slot (concurrency limit)" }
          : {}),
        ...noticeFields(run),
      };
    }
    const { output, note, ...cut } = await outputFor(manager, run, budgetOf(input), sessionId);
    return {
      status: run.status,
      sessionId: run.id,
      exitCode: run.exitCode,
      signal: run.signal,
      durationMs: run.durationMs,
      output,
      ...cut,
      ...(run.error ? { error: run.error } : {}),
      ...(note ? { note } : {}),
    };
  },
});

/**
 * The short tail a `running` answer shows: the last TAIL_BYTES of output so far, from a line's
 * start, after a marker saying what came before it and how to read it. `process poll` and `wait`
 * continue from its end: the cursor is taken in the same tick as the output's size.
 */
async function runningTail(ctx: ToolContext, runId: string, maxTokens: number): Promise<Budgeted> {
  const { manager, sessionId } = ctx;
  const now = manager.get(runId, { sessionId });
  toolState(manager).setCursor(runId, now.nextSeq);
  const cut = await budgetedRange(manager, runId, {
    sessionId,
    from: 0,
    to: streamOffset(now),
    maxTokens: Math.min(maxTokens, tokensOf(TAIL_BYTES + MARKER_RESERVE_BYTES)),
    keep: "tail",
    hint: processLogHint(runId),
  }).catch(() =>
    budgetedTail(manager.tail(runId, { maxChars: TAIL_BYTES }).text, streamOffset(now), {
      maxTokens,
      keep: "tail",
      hint: processLogHint(runId),
    }),
  );
  return cut;
}

/** `elevated` and `host` are honoured only where the context's policy allows them (see `ExecPolicy`). */
function refuseUnlessAllowed(ctx: ToolContext, input: ExecInput): void {
  const policy = ctx.execPolicy ?? {};
  if (input.elevated && !policy.elevated) {
    throw new ProcessError(
      "unsupported",
      "elevated: true is not allowed here: this agent runs commands only where its terminal provider runs them, with no elevated mode configured (ExecPolicy.elevated); run without elevated",
    );
  }
  if (input.host !== undefined && !(policy.hosts ?? []).includes(input.host)) {
    const allowed =
      policy.hosts && policy.hosts.length > 0
        ? `the hosts allowed are ${policy.hosts.join(", ")}`
        : "no host may be chosen (ExecPolicy.hosts is empty)";
    throw new ProcessError(
      "unsupported",
      `host ${JSON.stringify(input.host)} is not allowed: commands run where the terminal provider runs them, and ${allowed}; leave host out`,
    );
  }
}

/** Tells `ctx.onBackgroundExit` once the background run ends (the exec design's notifyOnExit). */
function notifyOnExit(ctx: ToolContext, runId: string): void {
  const sink = ctx.onBackgroundExit;
  if (!sink) {
    return;
  }
  void ctx.manager.wait(runId, { sessionId: ctx.sessionId }).then(
    (run) => {
      try {
        sink(exitNotice(ctx.manager, run));
      } catch {
        // The sink is the caller's: a throwing one must not become an unhandled rejection.
      }
    },
    () => undefined /* removed before it ended: nothing to tell */,
  );
}

function exitNotice(manager: ProcessManager, run: RunSnapshot): BackgroundExitNotice {
  const how =
    run.exitCode !== null
      ? `with exit code ${run.exitCode}`
      : run.signal
        ? `by ${run.signal}`
        : run.error
          ? `(${run.error})`
          : "";
  return {
    sessionId: run.sessionId,
    runId: run.id,
    status: run.status,
    exitCode: run.exitCode,
    signal: run.signal,
    snippet: manager.tail(run.id, { maxChars: 400 }).text,
    text: `exec ${run.id} (${derivedName(run)}) ${run.status}${how ? ` ${how}` : ""}`,
  };
}
