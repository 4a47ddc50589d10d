import { commandLine } from "../runs/describe.js";
import type { ProcessManager } from "../runs/manager.js";
import type { RunSnapshot } from "../runs/types.js";

/** A short summary of a run for list views. */
export function runSummary(run: RunSnapshot): Record<string, unknown> {
  return {
    id: run.id,
    status: run.status,
    command: commandLine(run),
    exitCode: run.exitCode,
    signal: run.signal,
    startedAt: run.startedAtMs === null ? null : new Date(run.startedAtMs).toISOString(),
    durationMs: run.durationMs,
    ...(run.error ? { error: run.error } : {}),
  };
}

/** The output a model sees for a finished or yielded run: the tail, capped, with what was cut said. */
export function outputFor(manager: ProcessManager, run: RunSnapshot, maxChars = manager.limits.maxOutputChars): { output: string; truncated: boolean; note?: string } {
  const tail = manager.tail(run.id, { maxChars });
  const notes: string[] = [];
  if (tail.truncated) notes.push(`output truncated to the last ${maxChars} characters; use process log with offset/limit to read more of what is retained`);
  if (run.lostBytes > 0) notes.push(`${run.lostBytes} bytes were dropped by the client before they could be read`);
  if (run.lostUnknown) notes.push("some output was dropped by the client before it could be read");
  return { output: tail.text, truncated: tail.truncated, ...(notes.length > 0 ? { note: notes.join("; ") } : {}) };
}
