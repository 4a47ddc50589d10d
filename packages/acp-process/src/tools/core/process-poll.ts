import { isFinished } from "../../model/run-record.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import { inputFields, processLogHint } from "./format.js";
import { HeadTailCollector } from "./head-tail.js";
import {
  BYTES_PER_TOKEN,
  budgetedRange,
  budgetFields,
  marker,
  MARKER_RESERVE_BYTES,
  tokensOf,
  type Keep,
} from "./token-budget.js";
import { toolState } from "./tool-state.js";

/** Most bytes one `log` with `byteOffset` reads. */
export const MAX_LOG_BYTES = 1024 * 1024;

/**
 * What is new since this run's previous poll, within the budget: at most `pendingMaxOutputChars`
 * (env OPENCLAW_/ZERO_BASH_PENDING_MAX_OUTPUT_CHARS) bytes and `maxOutputTokens`. When more is
 * pending, `keep` says what stays: head and tail around a marker (default), the head, or the
 * newest part alone (`tail`: no marker in the output, a `note`). `skippedBytes` counts the UTF-8
 * bytes left out, so a reader that adds up what polls return keeps an exact count; they stay
 * readable with `log` and `byteOffset`.
 */
export async function poll(
  manager: ProcessManager,
  owner: string,
  id: string,
  budget: { maxTokens: number; keep: Keep },
): Promise<Record<string, unknown>> {
  const state = toolState(manager);
  // Room for the marker inside the token budget, so a cut answer stays within it.
  const cap = Math.min(
    manager.limits.pendingMaxOutputChars,
    Math.max(0, budget.maxTokens * BYTES_PER_TOKEN - MARKER_RESERVE_BYTES),
  );
  const collector = new HeadTailCollector(cap, budget.keep);
  let cursor = pollCursor(manager, owner, id);
  let missedItems = 0;
  // Pages up to the items that existed at the first read (bounded by the store's retention); the
  // collector keeps the head and tail only, and the next poll starts where this one stopped.
  let end: number | undefined;
  // Only the command's bytes go in `output`: our notices have a field of their own.
  const notices = new BoundedList<string>(MAX_POLL_NOTICES);
  for (;;) {
    const page = await manager.read(id, {
      sessionId: owner,
      sinceSeq: cursor,
      limit: 1000,
      maxChars: 1 << 20,
    });
    end ??= page.run.nextSeq;
    missedItems += page.missedItems;
    for (const item of page.items) {
      // A watcher hit is said by the wait it woke (`woke: "match"`); a notice in `notices`.
      if (item.kind === "output") {
        collector.add(item.text, item.byteOffset);
      } else if (item.kind === "notice") {
        notices.add(item.text);
      }
    }
    cursor = page.nextSeq;
    if (page.items.length === 0 || cursor >= end) {
      break;
    }
  }
  state.setCursor(id, cursor);
  const hint = processLogHint(id);
  const cut = collector.result((omitted) => (budget.keep === "tail" ? "" : marker(omitted, hint)));
  const run = manager.get(id, { sessionId: owner });
  const skippedBytes = cut.omitted?.bytes ?? 0;
  const note =
    skippedBytes > 0
      ? `more than ${cap} bytes were pending (maxOutputTokens / OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS); ${skippedBytes} bytes were skipped here (${budget.keep === "tail" ? "the older part" : "between the head and the tail"}); read them with action log and byteOffset`
      : undefined;
  return {
    sessionId: id,
    status: run.status,
    output: cut.text,
    ...(note
      ? {
          note,
          skippedBytes,
          originalBytes: cut.totalBytes,
          originalTokenCount: tokensOf(cut.totalBytes),
          omitted: cut.omitted,
        }
      : {}),
    ...(missedItems > 0 ? { missedItems } : {}),
    ...notices.fields("notices"),
    ...inputFields(run, "camel", `action write with data (and "\n")`),
    ...(isFinished(run.status)
      ? { exitCode: run.exitCode, signal: run.signal, error: run.error }
      : {}),
  };
}

/**
 * Where this run's next `process poll` or `wait` starts: where the last answer of this surface
 * ended. exec's `running` answer and every poll store it; a run exec answered in the foreground
 * stores nothing (no memory per foreground run): its answer held the whole output, so it starts
 * at the end.
 */
export function pollCursor(manager: ProcessManager, owner: string, id: string): number {
  const state = toolState(manager);
  const stored = state.storedCursor(id);
  if (stored !== undefined) {
    return stored;
  }
  const run = manager.get(id, { sessionId: owner });
  return run.labels["tool"] === "exec" && !state.isBackground(id) && isFinished(run.status)
    ? run.nextSeq
    : 0;
}

/** `log` with `byteOffset`: output bytes by absolute offset, within the budget. */
export async function logBytes(
  manager: ProcessManager,
  owner: string,
  id: string,
  input: { byteOffset?: number | undefined; byteLimit?: number | undefined },
  budget: { maxTokens: number; keep: Keep },
): Promise<Record<string, unknown>> {
  const view = await manager.wholeCharacterBytes(id, {
    sessionId: owner,
    offset: input.byteOffset ?? 0,
    limit: Math.min(input.byteLimit ?? MAX_LOG_BYTES, MAX_LOG_BYTES),
  });
  const nextByteOffset = view.offset + view.byteLength;
  const cut = await budgetedRange(manager, id, {
    sessionId: owner,
    from: view.offset,
    to: nextByteOffset,
    ...budget,
    hint: processLogHint(id),
  });
  return {
    sessionId: id,
    status: view.run.status,
    output: cut.text,
    byteOffset: view.offset,
    nextByteOffset,
    totalBytes: view.totalBytes,
    ...budgetFields(cut, "camel"),
  };
}

/** Lines within the budget: the head and the tail of the list around one marker line. */
export function fitLines(
  lines: readonly string[],
  budget: { maxTokens: number; keep: Keep },
): { lines: string[]; omittedLines: number } {
  const cap = budget.maxTokens * BYTES_PER_TOKEN;
  const sizes = lines.map((line) => Buffer.byteLength(line, "utf8") + 1);
  if (sizes.reduce((a, b) => a + b, 0) <= cap) {
    return { lines: [...lines], omittedLines: 0 };
  }
  const headCap = budget.keep === "tail" ? 0 : budget.keep === "head" ? cap : cap / 2;
  let head = 0;
  for (let used = 0; head < lines.length && used + sizes[head]! <= headCap; head++) {
    used += sizes[head]!;
  }
  let tail = lines.length;
  for (let used = 0; tail > head && used + sizes[tail - 1]! <= cap - headCap; tail--) {
    used += sizes[tail - 1]!;
  }
  const omittedLines = tail - head;
  return {
    lines: [
      ...lines.slice(0, head),
      `[... ${omittedLines} lines omitted ...]`,
      ...lines.slice(tail),
    ],
    omittedLines,
  };
}

/** Notices one poll returns: at most this many, the newest (the rest counted). */
const MAX_POLL_NOTICES = 20;

/** The newest `max` values added, and how many older ones were left out. */
class BoundedList<T> {
  private readonly values: T[] = [];
  private leftOut = 0;

  constructor(private readonly max: number) {}

  add(value: T): void {
    this.values.push(value);
    if (this.values.length > this.max) {
      this.values.shift();
      this.leftOut++;
    }
  }

  /** `{[name]: values}` (and `${name}LeftOut`), or nothing when none were added. */
  fields(name: string): Record<string, unknown> {
    return this.values.length === 0
      ? {}
      : { [name]: this.values, ...(this.leftOut > 0 ? { [`${name}LeftOut`]: this.leftOut } : {}) };
  }
}
