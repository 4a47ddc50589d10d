import type { RunStore } from "../../store/types.js";
import type { RunItem, RunRecord } from "../../model/run-record.js";

export interface LineView {
  lines: string[];
  /** Absolute index (0-based) of `lines[0]` in the whole output. */
  offset: number;
  /** Lines in the whole output so far (an unterminated last line counts). */
  totalLines: number;
  /** Lines that are no longer retained (older than the retention window). */
  droppedLines: number;
}

/** Output text of retained items (notices excluded). */
function outputText(items: readonly RunItem[]): string {
  let text = "";
  for (const item of items) {
    if (item.kind === "output") {
      text += item.text;
    }
  }
  return text;
}

/**
 * Lines by absolute offset and limit. Omitted offset = the last `limit` lines. Only retained
 * output can be returned; older lines are counted in `droppedLines`.
 */
export function lineView(
  record: RunRecord,
  items: readonly RunItem[],
  query: { offset?: number; limit: number },
): LineView {
  const text = outputText(items);
  const endsOpen = text.length > 0 && !text.endsWith("\n");
  const totalLines = record.lineCount + (endsOpen ? 1 : 0);
  const parts = text.split("\n");
  if (!endsOpen) {
    parts.pop();
  }
  const retainedStart = totalLines - parts.length;
  // When older output was dropped, the first retained part may be the tail of a longer line;
  // we never present a possibly partial line as whole.
  const firstOutput = items.find((item) => item.kind === "output");
  const firstIsPartial =
    firstOutput !== undefined && firstOutput.byteOffset > 0 && parts.length > 0;
  const firstFull = retainedStart + (firstIsPartial ? 1 : 0);
  const limit = Math.max(0, query.limit);
  const wantedStart =
    query.offset === undefined
      ? Math.max(firstFull, totalLines - limit)
      : Math.max(firstFull, query.offset);
  const from = wantedStart - retainedStart;
  const lines = parts
    .slice(from, from + limit)
    .map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  return { lines, offset: wantedStart, totalLines, droppedLines: firstFull };
}

/** `tailText` over a run's newest stored items: more of them until they hold `maxChars` or there are no more. */
export function storeTail(
  store: RunStore,
  runId: string,
  maxChars: number,
): { text: string; truncated: boolean } {
  for (let limit = 16; ; limit *= 4) {
    const items = store.lastItems(runId, limit);
    const chars = items.reduce((n, item) => n + (item.kind === "output" ? item.text.length : 0), 0);
    if (chars >= maxChars || items.length < limit || limit >= store.retention.maxItemsPerRun) {
      return tailText(items, maxChars);
    }
  }
}

/** The last `maxChars` characters of the retained output, for status views. */
export function tailText(
  items: readonly RunItem[],
  maxChars: number,
): { text: string; truncated: boolean } {
  let text = "";
  for (let i = items.length - 1; i >= 0 && text.length < maxChars; i--) {
    const item = items[i]!;
    if (item.kind === "output") {
      text = item.text + text;
    }
  }
  const truncated = text.length > maxChars || (items.length > 0 && items[0]!.byteOffset > 0);
  if (text.length <= maxChars) {
    return { text, truncated };
  }
  // Cut at a character boundary: starting on the second half of a surrogate pair would show U+FFFD.
  const start = text.length - maxChars;
  const code = text.charCodeAt(start);
  return { text: text.slice(code >= 0xdc00 && code <= 0xdfff ? start + 1 : start), truncated };
}
