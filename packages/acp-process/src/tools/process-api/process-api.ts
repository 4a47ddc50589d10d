import { signalNameSchema } from "acp-terminal/protocol";
import { z } from "zod";
import { ProcessError } from "../../base/errors.js";
import { isFinished } from "../../model/run-record.js";
import {
  isoTime,
  PROCESS_STATES,
  processIdAlias,
  processIdField,
  processState,
  runFields,
  usageFields,
  usageOf,
} from "./process-view.js";
import { processLogsTool, processMonitorTool, processWaitTool } from "./process-read.js";
import { processRunTool } from "./process-run.js";
import { strictInput } from "../core/strict-input.js";
import { budgetInputs, budgetOf, fitEntries, maxOutputTokensInput } from "../core/token-budget.js";
import { defineTool } from "../core/types.js";

export { processState, type ProcessState } from "./process-view.js";
export { processLogsTool, processMonitorTool, processWaitTool } from "./process-read.js";
export { processRunTool } from "./process-run.js";

const DEFAULT_FORCE_AFTER_S = 10;
const MAX_FORCE_AFTER_S = 600;

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
    max_output_tokens: maxOutputTokensInput.describe(
      "Accepted as by every tool; this answer carries no output (read it with process.logs)",
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
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("First run of the page (next_offset of the previous page; default 0)"),
    max_output_tokens: budgetInputs.max_output_tokens,
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
    // Paged by `offset` and `limit`, and held to max_output_tokens: `next_offset` while more remain.
    const offset = input.offset ?? 0;
    const fitted = fitEntries(
      runs.slice(offset, offset + (input.limit ?? 50)).map((run) => ({
        process_id: run.id,
        command: runFields(run)["command"],
        state: processState(run.status, run.cause),
        exit_code: run.exitCode,
        started_at: isoTime(run.startedAtMs),
        duration_ms: run.durationMs,
        resource_usage: usageFields(run.resourceUsage ?? null),
      })),
      budgetOf(input).maxTokens,
    );
    const next = offset + fitted.entries.length;
    return {
      processes: fitted.entries,
      total: runs.length,
      ...(next < runs.length ? { next_offset: next } : {}),
      ...(fitted.omitted > 0
        ? {
            omitted_processes: fitted.omitted,
            note: `${fitted.omitted} more runs of this page did not fit in max_output_tokens: ask again from next_offset, or raise it`,
          }
        : {}),
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
