import { z } from "zod";
import { treeLimitMechanisms } from "../../runs/run/cgroup-limits.js";
import { messageOf, ProcessError } from "../../base/errors.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import { isFinished, streamOffset } from "../../model/run-record.js";
import { type RunSnapshot } from "../../model/run-events.js";
import { limitExceeded, limitsFor, shellCommandNotFound, startError } from "./process-outcomes.js";
import { logsHint, runFields, summaryOf, usageOf } from "./process-view.js";
import { budgetedTail, budgetFields, budgetInputs, budgetOf } from "../core/token-budget.js";
import { strictInput } from "../core/strict-input.js";
import { toolState } from "../core/tool-state.js";
import { defineTool, fromContext } from "../core/types.js";

const DEFAULT_TIMEOUT_S = 300;
const MAX_TIMEOUT_S = 3600;
/** A background run's `timeout`, when given, may be as long as a run can be (30 days). */
const MAX_BACKGROUND_TIMEOUT_S = 30 * 24 * 3600;
const DEFAULT_SUMMARY_LINES = 100;
const MAX_SUMMARY_LINES = 10_000;
const MAX_STDIN_BYTES = 1024 * 1024;

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
        "Fraction of one core. Local runs: the whole process tree gets at most this share (a cgroup CPU quota, where one can be made), and each process at most cpu_limit × timeout CPU seconds (RLIMIT_CPU; SIGXCPU ends it)",
      ),
    memory_limit: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "Bytes. Local runs: the whole process tree's memory (a cgroup limit, where one can be made: the kernel's OOM killer ends what goes past it) and each process's address space (RLIMIT_AS: allocations beyond it fail)",
      ),
    stdout_lines: z
      .number()
      .int()
      .min(1)
      .max(MAX_SUMMARY_LINES)
      .optional()
      .describe(`Trailing lines of output in stdout_summary (default ${DEFAULT_SUMMARY_LINES})`),
    ...budgetInputs,
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
    checkRunInput(input, manager.providerInfo(sessionId));
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
    checkOutcome(manager, run);
    return {
      ...answerOf(manager, run, input, sessionId),
      ...(limits ? { resource_limits: limitsField(limits) } : {}),
      ...(await usageOf(manager, run.id, sessionId)),
    };
  },
});

type ProcessRunInput = z.infer<typeof processRunSchema>;

/** The bounds the schema cannot say (they depend on `background` or on the provider). */
function checkRunInput(
  input: ProcessRunInput,
  provider: ReturnType<ProcessManager["providerInfo"]>,
): void {
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
  if (input.stdin !== undefined && !provider.capabilities.write) {
    throw new ProcessError(
      "unsupported",
      `stdin cannot be given with the ${provider.kind} terminal provider: the client does not offer writing to a command's stdin (acp-terminal's write extension); nothing was started. Pass the input in a file or in the command line.`,
    );
  }
}

/** A run that did not start, whose command the shell did not find, or that hit a limit is an error. */
function checkOutcome(manager: ProcessManager, run: RunSnapshot): void {
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
}

/** The run's fields and its output summary, held to the token budget. */
function answerOf(
  manager: ProcessManager,
  run: RunSnapshot,
  input: ProcessRunInput,
  sessionId: string,
): Record<string, unknown> {
  const summary = summaryOf(
    manager,
    run.id,
    input.stdout_lines ?? DEFAULT_SUMMARY_LINES,
    manager.limits.maxOutputChars,
  );
  // process.wait hands out what follows this answer (read in the same tick as the summary).
  toolState(manager).setByteCursor(run.id, streamOffset(manager.get(run.id, { sessionId })));
  const cut = budgetedTail(summary.text, streamOffset(run), {
    ...budgetOf(input),
    hint: logsHint(run.id),
  });
  return {
    ...runFields(run),
    stdout_summary: cut.text,
    // Terminals merge stderr into stdout (as a terminal shows them): it is in stdout_summary.
    stderr_summary: "",
    streams_merged: true,
    stdout_summary_truncated: summary.truncated || cut.truncated,
    ...budgetFields(cut, "snake"),
    stdout_line_count:
      run.lineCount +
      (run.outputBytes > 0 && !summary.text.endsWith("\n") && summary.text.length > 0 ? 1 : 0),
  };
}

function limitsField(limits: NonNullable<ReturnType<typeof limitsFor>>): Record<string, unknown> {
  return {
    cpu_seconds: limits.cpuSeconds ?? null,
    cpu_cores: limits.cpuCores ?? null,
    memory_bytes: limits.memoryBytes ?? null,
    // What binds the whole process tree here (null: only each process's rlimits).
    whole_tree: treeLimitMechanisms(),
  };
}

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
