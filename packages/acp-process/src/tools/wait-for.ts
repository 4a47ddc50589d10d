import type { ProcessManager } from "../runs/manager/manager.js";
import { isFinished } from "../model/run-record.js";
import { type RunEvent } from "../model/run-events.js";

/** Why a blocking `wait` returned. */
export type WakeReason = "exit" | "output" | "watch" | "input" | "timeout";

/** Longest a tool's `wait` may block: a tool call should not outlive the model's patience. */
export const MAX_WAIT_MS = 300_000;
export const DEFAULT_WAIT_MS = 30_000;

/**
 * Blocks until the run has an item at or after `sinceSeq` (new output, a notice, a watcher hit),
 * has finished, waits for input, or `timeoutMs` passed (on the manager's clock) — whichever comes first. Returns at
 * once when there is already something to read.
 */
export async function waitForActivity(
  manager: ProcessManager,
  runId: string,
  query: { sessionId: string; sinceSeq: number; timeoutMs: number },
): Promise<WakeReason> {
  await manager.refresh(runId, query.sessionId);
  const now = manager.get(runId, { sessionId: query.sessionId });
  if (isFinished(now.status)) {
    return "exit";
  }
  // Something to read already; a cursor past the end is answered (refused) at once by the read.
  if (now.nextSeq !== query.sinceSeq) {
    return "output";
  }
  const woken = new AbortController();
  let reason: WakeReason = "timeout";
  const wake = (why: WakeReason): void => {
    if (woken.signal.aborted) {
      return;
    }
    reason = why;
    woken.abort();
  };
  const unsubscribe = manager.subscribe((event: RunEvent) => {
    if (event.type === "watch" && event.runId === runId) {
      wake("watch");
    } else if (
      event.type === "output" &&
      event.runId === runId &&
      event.item.seq >= query.sinceSeq
    ) {
      wake(event.item.kind === "event" ? "watch" : "output");
    }
  });
  try {
    const run = await manager.wait(runId, {
      sessionId: query.sessionId,
      timeoutMs: query.timeoutMs,
      signal: woken.signal,
      untilInput: true,
    });
    return woken.signal.aborted
      ? reason
      : isFinished(run.status)
        ? "exit"
        : run.inputRequired
          ? "input"
          : "timeout";
  } finally {
    unsubscribe();
  }
}
