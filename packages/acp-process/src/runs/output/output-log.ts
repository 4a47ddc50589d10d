import type { RunStore } from "../../store/types.js";
import type { OutputDelta } from "./delta.js";
import {
  MAX_LOST_RANGES,
  noteOn,
  streamOffset,
  type RunItem,
  type RunRecord,
} from "../../model/run-record.js";
import type { RunSpill } from "../spill/run-spill.js";
import type { RunEvent } from "../../model/run-events.js";
import { WatcherSet } from "./watchers.js";

/** Largest item text; bigger increments are split, preferably after a newline. */
const MAX_ITEM_CHARS = 8192;
/** The recent-output snippet carried by watch events (as the shell tool's poll snippet). */
export const SNIPPET_MAX_CHARS = 400;

/**
 * Turns a run's increments into numbered items: assigns `seq`, keeps the byte and line counters
 * of the record, writes items to the store, feeds watchers and emits events.
 */
export class OutputLog {
  readonly watchers: WatcherSet;
  /** The last SNIPPET_MAX_CHARS characters the command wrote (kept or past the cap). */
  private recent = "";

  constructor(
    private readonly record: RunRecord,
    private readonly store: RunStore,
    private readonly emit: (event: RunEvent) => void,
    watchers: WatcherSet,
    private readonly now: () => number,
    /** Where output goes once it outgrows the store's window (see `RunSpill`). */
    readonly spill: RunSpill,
    /** A store that fails must not stop the output (or the run): the failure is reported here. */
    private readonly onStoreError: (error: unknown) => void = () => {},
  ) {
    this.watchers = watchers;
  }

  /** Records loss (as a notice and in the record) and the new text of one snapshot. */
  appendDelta(delta: OutputDelta, final: boolean): number {
    if (delta.lostBytes > 0) {
      this.noteLostRange(delta.lostBytes);
      this.record.lostBytes += delta.lostBytes;
      this.appendNotice(
        `[acp-process] ${delta.lostBytes} bytes of output were dropped by the client's output limit before they could be read`,
      );
    } else if (delta.lostUnknown) {
      this.record.lostUnknown = true;
      this.appendNotice(
        "[acp-process] output may have been dropped here by the client's output limit before it could be read (amount unknown: the client has no cursors)",
      );
    }
    return this.appendOutput(delta.text, final);
  }

  /** Items appended so far (including notices). */
  get itemCount(): number {
    return this.record.nextSeq;
  }

  /** `bytes`: the text's UTF-8 when the caller has it (pushed output), so the spill need not encode it again. */
  appendOutput(text: string, final = false, bytes?: Buffer): number {
    if (text.length === 0) {
      if (final) {
        this.emitHits(this.watchers.feed("", true));
      }
      return 0;
    }
    // Only the chunk's tail can reach the snippet: no copy of a large chunk per append.
    this.recent = (this.recent + text.slice(-SNIPPET_MAX_CHARS)).slice(-SNIPPET_MAX_CHARS);
    const cappedBefore = this.record.cappedBytes ?? 0;
    const kept = this.withinCap(text);
    const offset = streamOffset(this.record);
    const items: RunItem[] = [];
    // Its UTF-8 as long as the text: ASCII, a character is a byte (no scan per piece).
    const ascii = bytes !== undefined && kept === text && bytes.length === text.length;
    for (const piece of kept.length > 0 ? splitText(kept, MAX_ITEM_CHARS) : []) {
      items.push(this.nextItem("output", piece));
      this.record.outputBytes += ascii ? piece.length : Buffer.byteLength(piece, "utf8");
      this.record.lineCount += countNewlines(piece);
    }
    if (items.length > 0) {
      this.commit(items, { offset, text: kept, ...(bytes && kept === text ? { bytes } : {}) });
    }
    if (cappedBefore === 0 && (this.record.cappedBytes ?? 0) > 0) {
      this.appendNotice(
        `[acp-process] the output reached max_output_bytes (${this.record.maxOutputBytes} bytes); later output is not kept (the command keeps running and watchers still see it)`,
      );
    }
    // Watchers see everything the command writes, kept or not.
    this.emitHits(this.watchers.feed(text, final));
    return text.length;
  }

  /** The last output, at most SNIPPET_MAX_CHARS characters. */
  get snippet(): string {
    return this.recent;
  }

  /** The part of `text` within the run's `maxOutputBytes` (cut on a character boundary); the rest is counted in `cappedBytes`. */
  private withinCap(text: string): string {
    const cap = this.record.maxOutputBytes;
    if (!cap) {
      return text;
    }
    const bytes = Buffer.from(text, "utf8");
    const room = Math.max(0, cap - this.record.outputBytes);
    if (bytes.length <= room) {
      return text;
    }
    let end = room;
    while (end > 0 && (bytes[end]! & 0xc0) === 0x80) {
      end--; // back off a continuation byte
    }
    this.record.cappedBytes = (this.record.cappedBytes ?? 0) + (bytes.length - end);
    return bytes.subarray(0, end).toString("utf8");
  }

  /** Records `[offset, bytes]` of a loss at the current offset (merged into the last range beyond MAX_LOST_RANGES). */
  private noteLostRange(bytes: number): void {
    const ranges = (this.record.lostRanges ??= []);
    const at = streamOffset(this.record);
    const last = ranges.at(-1);
    if (last && (last[0] + last[1] === at || ranges.length >= MAX_LOST_RANGES)) {
      last[1] = at + bytes - last[0];
    } else {
      ranges.push([at, bytes]);
    }
  }

  /**
   * A message from acp-process itself (loss, fallback, recovery): an item in the history and on
   * the record's `notices`, which surfaces show beside the output, never in it.
   */
  appendNotice(text: string): void {
    noteOn(this.record, text);
    this.commit([this.nextItem("notice", text)]);
  }

  private nextItem(kind: RunItem["kind"], text: string): RunItem {
    return {
      seq: this.record.nextSeq++,
      kind,
      text,
      atMs: this.now(),
      byteOffset: streamOffset(this.record),
    };
  }

  private commit(
    items: RunItem[],
    output?: { offset: number; text: string; bytes?: Buffer },
  ): void {
    this.spill.beforeCommit(items, output);
    try {
      this.store.appendItems(this.record.id, items);
      this.store.putRun(this.record);
    } catch (error) {
      this.onStoreError(error);
    }
    for (const item of items) {
      this.emit({ type: "output", runId: this.record.id, sessionId: this.record.sessionId, item });
    }
  }

  /** Each hit is kept as an `event` item, then emitted with that item's seq and the snippet. */
  private emitHits(hits: ReturnType<WatcherSet["feed"]>): void {
    for (const hit of hits) {
      const item = this.nextItem("event", JSON.stringify({ event: hit.event, match: hit.match }));
      this.commit([item]);
      this.emit({
        type: "watch",
        runId: this.record.id,
        sessionId: this.record.sessionId,
        ...hit,
        seq: item.seq,
        snippet: this.recent,
      });
    }
  }
}

export function splitText(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) {
    return [text];
  }
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const newline = rest.lastIndexOf("\n", maxChars - 1);
    let cut = newline >= maxChars / 2 ? newline + 1 : maxChars;
    // Never split a surrogate pair.
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) {
      cut--;
    }
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0) {
    pieces.push(rest);
  }
  return pieces;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    count++;
  }
  return count;
}
