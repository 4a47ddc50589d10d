import { z } from "zod";
import { ProcessError } from "../../base/errors.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import { streamOffset, totalOutputBytes } from "../../model/run-record.js";
import { type RunSnapshot } from "../../model/run-events.js";
import {
  logsHint,
  processIdAlias,
  processIdField,
  processState,
  runFields,
  summaryOf,
  usageOf,
} from "./process-view.js";
import { strictInput } from "../core/strict-input.js";
import {
  budgetedRange,
  budgetedTail,
  budgetFields,
  budgetInputs,
  budgetOf,
  type Keep,
} from "../core/token-budget.js";
import { toolState } from "../core/tool-state.js";
import { defineTool } from "../core/types.js";
import { waitFor } from "../core/wait-for.js";

const MONITOR_SUMMARY_LINES = 20;
const MONITOR_SUMMARY_CHARS = 2000;
/** Most bytes one process.logs answer returns (`limit` omitted or larger); `truncated` says when more is there. */
const MAX_LOG_BYTES = 1024 * 1024;
const DEFAULT_WAIT_S = 30;
const MAX_WAIT_S = 600;
/** Most bytes of new output a process.wait answer carries. */
const WAIT_OUTPUT_BYTES = 64 * 1024;

const processMonitorSchema = strictInput(
  { id: processIdField, ...budgetInputs },
  { aliases: processIdAlias },
);

async function monitorAnswer(
  manager: ProcessManager,
  run: RunSnapshot,
  sessionId: string,
  budget: { maxTokens: number; keep: Keep },
): Promise<Record<string, unknown>> {
  const summary = summaryOf(manager, run.id, MONITOR_SUMMARY_LINES, MONITOR_SUMMARY_CHARS);
  const cut = budgetedTail(summary.text, streamOffset(run), { ...budget, hint: logsHint(run.id) });
  return {
    ...runFields(run),
    stdout_summary: cut.text,
    stdout_summary_truncated: summary.truncated || cut.truncated,
    ...budgetFields(cut, "snake"),
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
    return monitorAnswer(manager, manager.get(input.id, { sessionId }), sessionId, budgetOf(input));
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
      .describe(
        `Most bytes read (default all, at most ${MAX_LOG_BYTES} per call); a range over max_output_tokens keeps its head and tail`,
      ),
    ...budgetInputs,
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
    const budget = budgetOf(input);
    // Read first as asked (the range may end early: the output's end, a lost range).
    const view = await manager.wholeCharacterBytes(input.id, { sessionId, offset, limit });
    const nextOffset = view.offset + view.byteLength;
    const cut = await budgetedRange(manager, input.id, {
      sessionId,
      from: view.offset,
      to: nextOffset,
      ...budget,
      hint: logsHint(input.id),
    });
    return {
      process_id: input.id,
      state: processState(view.run.status, view.run.cause),
      stdout: cut.text,
      stderr: "",
      // Every byte the command wrote: offsets run from 0 to it.
      stdout_size: view.totalBytes,
      stderr_size: 0,
      streams_merged: true,
      offset: view.offset,
      next_offset: nextOffset,
      truncated: nextOffset < view.totalBytes,
      ...budgetFields(cut, "snake"),
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
    until: z
      .enum(["exit", "output"])
      .optional()
      .describe(
        "What ends the wait (default exit). exit: the run's end, or sooner when it waits for input or new output matches pattern; output: any new output too",
      ),
    since_size: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Output bytes already seen (a previous stdout_size / next_offset). Default: where the last process.run or process.wait answer for this run ended, so each byte is handed out once",
      ),
    pattern: z
      .string()
      .min(1)
      .optional()
      .describe("Regular expression: wake when new output matches it (or on exit)"),
    ...budgetInputs,
  },
  { aliases: processIdAlias },
);

export const processWaitTool = defineTool({
  name: "process.wait",
  description:
    "Block up to timeout seconds until the run exits (or waits for input, or new output matches pattern; with until 'output', on any new output); answers as process.monitor, with the output not handed out before and what woke it.",
  schema: processWaitSchema,
  async run({ manager, sessionId }, input) {
    const sinceBytes =
      input.since_size ??
      toolState(manager).byteCursor(input.id) ??
      totalOutputBytes(manager.get(input.id, { sessionId }));
    const { woke, match } = await waitFor(manager, input.id, {
      sessionId,
      since: { bytes: sinceBytes },
      until: input.until ?? "exit",
      timeoutMs: Math.round((input.timeout ?? DEFAULT_WAIT_S) * 1000),
      ...(input.pattern !== undefined ? { pattern: input.pattern } : {}),
    });
    const budget = budgetOf(input);
    const fresh = await manager.wholeCharacterBytes(input.id, {
      sessionId,
      offset: sinceBytes,
      limit: WAIT_OUTPUT_BYTES,
    });
    const nextOffset = fresh.offset + fresh.byteLength;
    const cut = await budgetedRange(manager, input.id, {
      sessionId,
      from: fresh.offset,
      to: nextOffset,
      ...budget,
      hint: logsHint(input.id),
    });
    toolState(manager).setByteCursor(input.id, nextOffset);
    return {
      ...(await monitorAnswer(manager, fresh.run, sessionId, budget)),
      woke,
      ...(match !== undefined ? { match } : {}),
      stdout: cut.text,
      next_offset: nextOffset,
      truncated: nextOffset < fresh.totalBytes,
      ...budgetFields(cut, "snake"),
    };
  },
});
