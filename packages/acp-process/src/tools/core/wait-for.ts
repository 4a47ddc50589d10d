import type { ProcessManager } from "../../runs/manager/manager.js";
import { isFinished, streamOffset, type RunItem } from "../../model/run-record.js";
import type { RunEvent, RunSnapshot } from "../../model/run-events.js";
import { toolState } from "./tool-state.js";

/**
 * What a tool's `wait` waits for. `exit` (the default): the run's end, or sooner when it waits for
 * input or a watcher matches (the run's own, or the wait's `pattern`). `output`: also any new
 * output (or item) past the caller's cursor.
 */
export type WaitUntil = "exit" | "output";

/**
 * Why a wait returned: `exit`; `input` (the command waits for input); `watch` (one of the run's
 * own watchers matched); `match` (the wait's `pattern` matched); `output` (new output, with
 * `until: "output"` only); `timeout` (the wait's time ran out, the run still going).
 */
export type WakeReason = "exit" | "output" | "watch" | "match" | "input" | "timeout";

/** Longest a tool's `wait` may block: a tool call should not outlive the model's patience. */
export const MAX_WAIT_MS = 300_000;
export const DEFAULT_WAIT_MS = 30_000;

export interface WaitQuery {
  sessionId: string;
  timeoutMs: number;
  until: WaitUntil;
  /** What the caller has read: an item seq (items at or after it are new) or an output byte offset. */
  since: { seq: number } | { bytes: number };
  /** A regular expression: wake when new output matches it (a watcher for this wait only). */
  pattern?: string;
}

/**
 * Blocks until what `query` asks for happens, or `timeoutMs` passed (on the manager's clock), and
 * says what it was. Returns at once when it already happened: the run has ended, waits for input,
 * has a watcher hit past the cursor, or (with `until: "output"`) has something past the cursor.
 * Subscribes before it looks, so nothing between the caller's last read and the wait is missed.
 */
export async function waitFor(
  manager: ProcessManager,
  runId: string,
  query: WaitQuery,
): Promise<{ woke: WakeReason; match?: string }> {
  const { sessionId } = query;
  await manager.refresh(runId, sessionId);
  const woken = new AbortController();
  let woke: { woke: WakeReason; match?: string } | undefined;
  let watcherId: string | undefined;
  const wake = (reason: { woke: WakeReason; match?: string }): void => {
    if (woke === undefined) {
      woke = reason;
      woken.abort();
    }
  };
  const unsubscribe = manager.subscribe((event: RunEvent) => {
    if (event.type === "watch" && event.runId === runId) {
      wake({ woke: event.watcherId === watcherId ? "match" : "watch", match: event.match });
    } else if (
      query.until === "output" &&
      event.type === "output" &&
      event.runId === runId &&
      isPast(event.item, query.since)
    ) {
      wake({ woke: event.item.kind === "event" ? "watch" : "output" });
    }
  });
  try {
    if (query.pattern !== undefined && !isFinished(manager.get(runId, { sessionId }).status)) {
      watcherId = manager.watch(runId, { regex: query.pattern, once: true }, { sessionId });
    }
    const already = alreadyHappened(manager, manager.get(runId, { sessionId }), query);
    if (already) {
      return woke ?? { woke: already };
    }
    const run = await manager.wait(runId, {
      sessionId,
      timeoutMs: query.timeoutMs,
      signal: woken.signal,
      untilInput: true,
    });
    return (
      woke ?? {
        woke: isFinished(run.status) ? "exit" : run.inputRequired ? "input" : "timeout",
      }
    );
  } finally {
    unsubscribe();
    if (watcherId !== undefined) {
      unwatch(manager, runId, watcherId, sessionId);
    }
  }
}

/** What ends the wait before it starts, if anything: the exit, input required, an unread hit or (until output) unread output. */
function alreadyHappened(
  manager: ProcessManager,
  now: RunSnapshot,
  query: WaitQuery,
): WakeReason | undefined {
  if (isFinished(now.status)) {
    return "exit";
  }
  if (now.inputRequired && now.status === "running") {
    return "input";
  }
  const { since } = query;
  if ("seq" in since) {
    // A cursor past the end is answered (refused) at once by the read that follows.
    if (since.seq > now.nextSeq) {
      return "output";
    }
    if (toolState(manager).hitsSince(now.id, since.seq).length > 0) {
      return "watch";
    }
  }
  if (query.until === "output") {
    const unread = "seq" in since ? now.nextSeq > since.seq : streamOffset(now) > since.bytes;
    return unread ? "output" : undefined;
  }
  return undefined;
}

function isPast(item: RunItem, since: WaitQuery["since"]): boolean {
  return "seq" in since
    ? item.seq >= since.seq
    : item.kind === "output" && item.byteOffset + Buffer.byteLength(item.text) > since.bytes;
}

function unwatch(
  manager: ProcessManager,
  runId: string,
  watcherId: string,
  sessionId: string,
): void {
  try {
    manager.unwatch(runId, watcherId, { sessionId });
  } catch {
    // The run ended meanwhile: its watchers went with it.
  }
}
