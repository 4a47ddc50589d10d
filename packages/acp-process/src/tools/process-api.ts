import { signalNameSchema } from "acp-terminal/protocol";
import { z } from "zod";
import { messageOf, ProcessError } from "../errors.js";
import type { ProcessManager } from "../runs/manager/manager.js";
import { isFinished, totalOutputBytes } from "../model/run-record.js";
import { type RunSnapshot } from "../model/run-events.js";
import { limitExceeded, limitsFor, shellCommandNotFound, startError } from "./process-outcomes.js";
import {
  isoTime,
  PROCESS_STATES,
  processState,
  runFields,
  summaryOf,
  usageFields,
  usageOf,
} from "./process-view.js";
import { waitForChange } from "./process-wait.js";
import { strictInput } from "./strict-input.js";
import { defineTool, fromContext } from "./types.js";

export { processState, type ProcessState } from "./process-view.js";

const DEFAULT_TIMEOUT_S = 300;
const MAX_TIMEOUT_S = 3600;
/** A background run's `timeout`, when given, may be as long as a run can be (30 days). */
const MAX_BACKGROUND_TIMEOUT_S = 30 * 24 * 3600;
const DEFAULT_FORCE_AFTER_S = 10;
const MAX_FORCE_AFTER_S = 600;
const DEFAULT_SUMMARY_LINES = 100;
const MAX_SUMMARY_LINES = 10_000;
const MONITOR_SUMMARY_LINES = 20;
const MONITOR_SUMMARY_CHARS = 2000;
const MAX_STDIN_BYTES = 1024 * 1024;
/** Most bytes one process.logs answer returns (`limit` omitted or larger); `truncated` says when more is there. */
const MAX_LOG_BYTES = 1024 * 1024;
const DEFAULT_WAIT_S = 30;
const MAX_WAIT_S = 600;
/** Most bytes of new output a process.wait answer carries. */
const WAIT_OUTPUT_BYTES = 64 * 1024;

const processIdField = z.string().min(1).describe("The process_id returned by process.run");
const processIdAlias = { process_id: "id" } as const;

const processRunSchema = strictInput(
  {
    command: z
      .string()
      .min(1)
      .describe("Command line (run by the shell when args is omitted) or program (with args)"),
    args: z
      .array(z.string())
      .optional()
      .describe("Arguments, each passed as one argument without a shell"),
    cwd: z.string().optional().describe("Absolute working directory (default: the session's)"),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe("Environment variables added to the base environment"),
    timeout: z
      .number()
      .positive()
      .max(MAX_BACKGROUND_TIMEOUT_S)
      .optional()
      .describe(
        `Seconds before a foreground run is stopped with state timed_out (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S}). Background runs have none unless given (then up to 30 days).`,
      ),
    background: z
      .boolean()
      .optional()
      .describe(
        "Start and return at once with state 'running'; no foreground timeout. Follow with process.wait/monitor/logs/kill.",
      ),
    stdin: z
      .string()
      .optional()
      .describe(
        `Text written to the command's stdin, which is then closed (at most ${MAX_STDIN_BYTES} bytes; foreground only). Without it stdin is closed at once.`,
      ),
    cpu_limit: z
      .number()
      .positive()
      .optional()
      .describe(
        "Fraction of one core, enforced (local runs) as RLIMIT_CPU = cpu_limit × timeout CPU seconds; SIGXCPU ends a run that uses more",
      ),
    memory_limit: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Bytes of address space (RLIMIT_AS, local runs); allocations beyond it fail"),
    stdout_lines: z
      .number()
      .int()
      .min(1)
      .max(MAX_SUMMARY_LINES)
      .optional()
      .describe(`Trailing lines of output in stdout_summary (default ${DEFAULT_SUMMARY_LINES})`),
  },
  { aliases: { working_directory: "cwd", environment: "env" } },
);

export const processRunTool = defineTool({
  name: "process.run",
  description:
    "Run a command to completion (or in the background) and return its state, exit code, output summary, duration and resource usage.",
  schema: processRunSchema,
  async run(ctx, input) {
    const { manager, sessionId } = ctx;
    const background = input.background ?? false;
    if (!background && input.timeout !== undefined && input.timeout > MAX_TIMEOUT_S) {
      throw ProcessError.invalidParams(
        "timeout",
        `at most ${MAX_TIMEOUT_S} seconds for a foreground run; for longer work pass background: true`,
        input.timeout,
      );
    }
    if (background && input.stdin !== undefined) {
      throw ProcessError.invalidParams(
        "stdin",
        "no stdin with background: true (the specification ignores it there); run in the foreground to feed input",
        "(given)",
      );
    }
    if (input.stdin !== undefined && Buffer.byteLength(input.stdin) > MAX_STDIN_BYTES) {
      throw ProcessError.invalidParams(
        "stdin",
        `at most ${MAX_STDIN_BYTES} bytes; pass larger input through a file`,
        `${Buffer.byteLength(input.stdin)} bytes`,
      );
    }
    const provider = manager.providerInfo(sessionId);
    if (input.stdin !== undefined && !provider.capabilities.write) {
      throw new ProcessError(
        "unsupported",
        `stdin cannot be given with the ${provider.kind} terminal provider: the client does not offer writing to a command's stdin (acp-terminal's write extension); nothing was started. Pass the input in a file or in the command line.`,
      );
    }
    const timeoutS = input.timeout ?? (background ? 0 : DEFAULT_TIMEOUT_S);
    const limits = limitsFor(input, timeoutS);
    const started = await manager.start({
      sessionId,
      command: input.command,
      ...(input.args ? { args: input.args } : {}),
      ...(input.cwd ? { cwd: input.cwd } : {}),
      ...(input.env ? { env: input.env } : {}),
      timeoutMs: Math.round(timeoutS * 1000),
      ...(input.stdin !== undefined ? { stdin: true } : {}),
      ...(limits ? { resourceLimits: limits } : {}),
      ...fromContext(ctx, "process.run"),
    });
    if (started.cause === "spawn_error") {
      throw startError(started);
    }
    if (input.stdin !== undefined) {
      await feedStdin(manager, started, input.stdin, sessionId);
    }
    const run = background ? started : await manager.wait(started.id);
    if (run.cause === "spawn_error") {
      throw startError(run);
    }
    if (shellCommandNotFound(manager, run)) {
      const said = manager.tail(run.id, { maxChars: 300 }).text.trim();
      throw new ProcessError(
        "CommandNotFound",
        `Command not found: the shell said ${JSON.stringify(said)} and exited 127 (process_id ${run.id}). Check that it is installed with process.run(command='which', args=['<name>']), or give its absolute path.`,
      );
    }
    const exceeded = limitExceeded(manager, run);
    if (exceeded) {
      throw new ProcessError(
        "ResourceLimitExceeded",
        `${exceeded} (process_id ${run.id}, exit_code ${run.exitCode}, signal ${run.signal}). Retry with a higher cpu_limit or memory_limit, or make the command use less.`,
      );
    }
    const summary = summaryOf(
      manager,
      run.id,
      input.stdout_lines ?? DEFAULT_SUMMARY_LINES,
      manager.limits.maxOutputChars,
    );
    return {
      ...runFields(run),
      stdout_summary: summary.text,
      // Terminals merge stderr into stdout (as a terminal shows them): it is in stdout_summary.
      stderr_summary: "",
      streams_merged: true,
      stdout_summary_truncated: summary.truncated,
      stdout_line_count:
        run.lineCount +
        (run.outputBytes > 0 && !summary.text.endsWith("\n") && summary.text.length > 0 ? 1 : 0),
      ...(limits
        ? {
            resource_limits: {
              cpu_seconds: limits.cpuSeconds ?? null,
              memory_bytes: limits.memoryBytes ?? null,
            },
          }
        : {}),
      ...(await usageOf(manager, run.id, sessionId)),
    };
  },
});

/**
 * Writes `stdin` and closes it; a command that exited without reading it is not an error. A write
 * that fails while the command runs (it does not read its input) stops the command: the caller
 * gets the error, and nothing is left running that nobody waits for.
 */
async function feedStdin(
  manager: ProcessManager,
  run: RunSnapshot,
  data: string,
  sessionId: string,
): Promise<void> {
  try {
    await manager.write(run.id, data, { sessionId, eof: true });
  } catch (error) {
    if (isFinished(manager.get(run.id, { sessionId }).status)) {
      return;
    }
    await manager.kill(run.id, { sessionId, signal: "SIGKILL" });
    const code = error instanceof ProcessError ? error.code : "provider_error";
    throw new ProcessError(
      code,
      `stdin could not be written (${messageOf(error)}); the command was stopped (process_id ${run.id})`,
      { cause: error },
    );
  }
}

const processMonitorSchema = strictInput({ id: processIdField }, { aliases: processIdAlias });

async function monitorAnswer(
  manager: ProcessManager,
  run: RunSnapshot,
  sessionId: string,
): Promise<Record<string, unknown>> {
  const summary = summaryOf(manager, run.id, MONITOR_SUMMARY_LINES, MONITOR_SUMMARY_CHARS);
  return {
    ...runFields(run),
    stdout_summary: summary.text,
    stdout_summary_truncated: summary.truncated,
    ...(await usageOf(manager, run.id, sessionId)),
  };
}

export const processMonitorTool = defineTool({
  name: "process.monitor",
  description:
    "State, exit code, start time, duration, resource usage and the last lines of output of a run.",
  schema: processMonitorSchema,
  async run({ manager, sessionId }, input) {
    await manager.refresh(input.id, sessionId);
    return monitorAnswer(manager, manager.get(input.id, { sessionId }), sessionId);
  },
});

const processKillSchema = strictInput(
  {
    id: processIdField,
    signal: signalNameSchema
      .optional()
      .describe("Signal name, default SIGTERM (delivered where the client supports signals)"),
    force_after: z
      .number()
      .min(0)
      .max(MAX_FORCE_AFTER_S)
      .optional()
      .describe(
        `Seconds after the signal before SIGKILL (default ${DEFAULT_FORCE_AFTER_S}); 0 = the signal only, never escalated`,
      ),
  },
  { aliases: processIdAlias },
);

export const processKillTool = defineTool({
  name: "process.kill",
  description:
    "Stop a running command with a signal (default SIGTERM), escalating to SIGKILL after force_after seconds unless it is 0.",
  schema: processKillSchema,
  async run({ manager, sessionId }, input) {
    const before = manager.get(input.id, { sessionId });
    if (isFinished(before.status)) {
      throw new ProcessError(
        "ProcessAlreadyExited",
        `Process ${before.id} has already ended (state ${processState(before.status, before.cause)}, exit_code ${before.exitCode}): nothing was signalled; process.monitor shows its final state`,
      );
    }
    const forceAfterS = input.force_after ?? DEFAULT_FORCE_AFTER_S;
    const { run, signalsSent } = await manager.stop(input.id, {
      sessionId,
      signal: input.signal ?? "SIGTERM",
      forceAfterMs: Math.round(forceAfterS * 1000),
      escalate: forceAfterS > 0,
    });
    const stillRunning = !isFinished(run.status);
    return {
      ...runFields(run),
      killed: run.status === "killed",
      signal_sent: signalsSent.at(-1) ?? null,
      signals_sent: signalsSent,
      ...(stillRunning
        ? {
            note: `the command is still running after ${signalsSent.join(", ") || "the kill"} (force_after 0: no escalation); call process.kill with signal SIGKILL to force it`,
          }
        : {}),
      ...(await usageOf(manager, run.id, sessionId)),
    };
  },
});

const processListSchema = strictInput(
  {
    state: z
      .enum(["all", ...PROCESS_STATES])
      .optional()
      .describe("Only runs in this state (default all)"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(500)
      .optional()
      .describe("Most runs returned, newest first (default 50)"),
  },
  { aliases: { state_filter: "state" } },
);

export const processListTool = defineTool({
  name: "process.list",
  description:
    "Runs of this session, newest first, optionally filtered by state, with the total that match.",
  schema: processListSchema,
  async run({ manager, sessionId }, input) {
    const wanted = input.state ?? "all";
    const runs = manager
      .list({ sessionId, limit: 500 })
      .filter((run) => wanted === "all" || processState(run.status, run.cause) === wanted);
    return {
      processes: runs.slice(0, input.limit ?? 50).map((run) => ({
        process_id: run.id,
        command: runFields(run)["command"],
        state: processState(run.status, run.cause),
        exit_code: run.exitCode,
        started_at: isoTime(run.startedAtMs),
        duration_ms: run.durationMs,
        resource_usage: usageFields(run.resourceUsage ?? null),
      })),
      total: runs.length,
    };
  },
});

const processLogsSchema = strictInput(
  {
    id: processIdField,
    stream: z
      .enum(["stdout", "stderr", "both"])
      .optional()
      .describe(
        "'stdout' or 'both' (default): the merged output. 'stderr' is refused: terminals merge it into stdout",
      ),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("Byte offset to read from (default 0); pass next_offset to continue"),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Most bytes returned (default all, at most ${MAX_LOG_BYTES} per call)`),
  },
  { aliases: processIdAlias },
);

export const processLogsTool = defineTool({
  name: "process.logs",
  description:
    "Output of a run by byte offset and limit, with its total size; stdout and stderr are merged.",
  schema: processLogsSchema,
  async run({ manager, sessionId }, input) {
    if (input.stream === "stderr") {
      manager.get(input.id, { sessionId }); // an unknown id says so first
      throw new ProcessError(
        "unsupported",
        "stream 'stderr' cannot be read on its own: commands run in a terminal where stderr and stdout share one descriptor, so stderr is part of stdout in the order it was written; read stream 'stdout' or 'both'",
      );
    }
    const offset = input.offset ?? 0;
    const limit = Math.min(input.limit ?? MAX_LOG_BYTES, MAX_LOG_BYTES);
    const view = await manager.wholeCharacterBytes(input.id, { sessionId, offset, limit });
    const nextOffset = view.offset + view.byteLength;
    return {
      process_id: input.id,
      state: processState(view.run.status, view.run.cause),
      stdout: view.text,
      stderr: "",
      // Every byte the command wrote: offsets run from 0 to it.
      stdout_size: view.totalBytes,
      stderr_size: 0,
      streams_merged: true,
      offset: view.offset,
      next_offset: nextOffset,
      truncated: nextOffset < view.totalBytes,
    };
  },
});

const processWaitSchema = strictInput(
  {
    id: processIdField,
    timeout: z
      .number()
      .positive()
      .max(MAX_WAIT_S)
      .optional()
      .describe(`Most seconds to wait (default ${DEFAULT_WAIT_S}, at most ${MAX_WAIT_S})`),
    since_size: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Output bytes already seen (a previous stdout_size / next_offset); default: the size now. Wakes on output past it",
      ),
    pattern: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Regular expression: wake only when new output matches it (or on exit), not on any output",
      ),
  },
  { aliases: processIdAlias },
);

export const processWaitTool = defineTool({
  name: "process.wait",
  description:
    "Block up to timeout seconds until the run exits, writes new output, or new output matches pattern; answers as process.monitor, with the new output and what woke it.",
  schema: processWaitSchema,
  async run({ manager, sessionId }, input) {
    await manager.refresh(input.id, sessionId);
    const sinceBytes = input.since_size ?? totalOutputBytes(manager.get(input.id, { sessionId }));
    const { woke, match } = await waitForChange(manager, input.id, {
      sessionId,
      sinceBytes,
      timeoutMs: Math.round((input.timeout ?? DEFAULT_WAIT_S) * 1000),
      ...(input.pattern !== undefined ? { pattern: input.pattern } : {}),
    });
    const fresh = await manager.wholeCharacterBytes(input.id, {
      sessionId,
      offset: sinceBytes,
      limit: WAIT_OUTPUT_BYTES,
    });
    const nextOffset = fresh.offset + fresh.byteLength;
    return {
      ...(await monitorAnswer(manager, fresh.run, sessionId)),
      woke,
      ...(match !== undefined ? { match } : {}),
      stdout: fresh.text,
      next_offset: nextOffset,
      truncated: nextOffset < fresh.totalBytes,
    };
  },
});

export const processTools = [
  processRunTool,
  processMonitorTool,
  processKillTool,
  processListTool,
  processLogsTool,
  processWaitTool,
] as const;
