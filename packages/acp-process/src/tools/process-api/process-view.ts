import { z } from "zod";
import { HINT_LIMIT_BYTES } from "../core/token-budget.js";
import { inputFields, noticeFields, shownText } from "../core/format.js";
import { commandLine } from "../../runs/run/describe.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import { totalOutputBytes, type RunStatus, type TerminationCause } from "../../model/run-record.js";
import type { RunSnapshot } from "../../model/run-events.js";
import type { ResourceUsage } from "../../providers/proc-usage.js";

/**
 * The states of the process.* surface: the specification's four, and `failed_to_start` for a run
 * that never started (process.run answers those with `CommandNotFound`/`SpawnFailed`; monitor,
 * list and logs show them in this state). A command that exits non-zero is `completed` with its
 * `exit_code`; a run lost to a restart is `killed`.
 */
export type ProcessState = "completed" | "running" | "killed" | "timed_out" | "failed_to_start";

export const PROCESS_STATES: readonly ProcessState[] = [
  "running",
  "completed",
  "killed",
  "timed_out",
  "failed_to_start",
];

export function processState(
  status: RunStatus,
  cause: TerminationCause | null = null,
): ProcessState {
  switch (status) {
    case "queued":
    case "running":
      return "running";
    case "killed":
    case "lost":
      return "killed";
    case "timed_out":
      return "timed_out";
    case "failed":
      return cause === "spawn_error" ? "failed_to_start" : "completed";
    default:
      return "completed";
  }
}

/** The specification's `resource_usage` fields, and the measured figures behind them. */
export function usageFields(usage: ResourceUsage | null): Record<string, number> | null {
  if (!usage) {
    return null;
  }
  return {
    cpu_ms: Math.round(usage.cpuUserMs + usage.cpuSystemMs),
    memory_peak_bytes: usage.memoryPeakBytes,
    io_read_bytes: usage.ioReadBytes,
    io_write_bytes: usage.ioWriteBytes,
    cpu_user_ms: usage.cpuUserMs,
    cpu_system_ms: usage.cpuSystemMs,
    rss_bytes: usage.rssBytes,
    processes: usage.processes,
  };
}

/** `resource_usage` (sampled now while running, else the last sample), or null with `resource_usage_note`. */
export async function usageOf(
  manager: ProcessManager,
  runId: string,
  sessionId: string,
): Promise<Record<string, unknown>> {
  const { usage, note } = await manager.resourceUsage(runId, { sessionId });
  return usage
    ? { resource_usage: usageFields(usage) }
    : { resource_usage: null, resource_usage_note: note };
}

export const processIdField = z.string().min(1).describe("The process_id returned by process.run");
export const processIdAlias = { process_id: "id" } as const;

/** How process.* answers name omitted bytes: the process.logs call that reads them. */
export function logsHint(runId: string): (offset: number, bytes: number) => string {
  return (offset, bytes) =>
    `process.logs ${JSON.stringify({ id: runId, offset, limit: Math.min(bytes, HINT_LIMIT_BYTES) })}`;
}

export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The fields every process.* answer about one run carries. */
export function runFields(run: RunSnapshot): Record<string, unknown> {
  return {
    process_id: run.id,
    command: shownText(commandLine(run)),
    state: processState(run.status, run.cause),
    exit_code: run.exitCode,
    signal: run.signal,
    started_at: isoTime(run.startedAtMs),
    duration_ms: run.durationMs,
    // Every byte the command wrote (kept, dropped by the client, past max_output_bytes).
    stdout_size: totalOutputBytes(run),
    ...inputFields(
      run,
      "snake",
      "nothing here (process.* cannot write to a running command): stop it with process.kill and run it again with its input in stdin or the command line",
    ),
    ...(run.error ? { error: shownText(run.error) } : {}),
    ...(run.startFailure
      ? { error_code: run.startFailure === "command_not_found" ? "CommandNotFound" : "SpawnFailed" }
      : {}),
    ...noticeFields(run),
  };
}

/**
 * The last `lines` lines of the retained output (an unterminated last line counts), at most
 * `maxChars` characters. `truncated`: earlier output exists that the summary leaves out.
 */
export function summaryOf(
  manager: ProcessManager,
  runId: string,
  lines: number,
  maxChars: number,
): { text: string; truncated: boolean } {
  const tail = manager.tail(runId, { maxChars });
  let cut = tail.text.length;
  // Skip a final newline: it ends the last line rather than starting another.
  let seen = 0;
  for (let i = tail.text.length - (tail.text.endsWith("\n") ? 2 : 1); i >= 0; i--) {
    if (tail.text.charCodeAt(i) === 10 && ++seen === lines) {
      cut = i + 1;
      break;
    }
  }
  if (seen < lines) {
    return tail;
  }
  return { text: tail.text.slice(cut), truncated: true };
}
