import type { RunItem, RunRecord } from "../model/run-record.js";
import { RetentionWindow } from "./retention-window.js";
import { storeClosed } from "./store-error.js";
import {
  DEFAULT_RETENTION,
  type ItemPage,
  type ItemQuery,
  type RetentionLimits,
  type RunStore,
} from "./types.js";

interface ItemLog {
  items: RunItem[];
  /** Index of the oldest retained item in `items` (head of the queue). */
  head: number;
  window: RetentionWindow;
}

/**
 * What a dropped item's slot holds until the queue is compacted: the item itself would keep its
 * text alive (up to 1024 items of 8 KiB past the window, long enough for V8 to move them to the
 * old generation, where a flood's strings then piled up until a full collection: +60 MB of RSS
 * for 100 MB of output).
 */
const DROPPED: RunItem = Object.freeze({
  seq: -1,
  kind: "output",
  text: "",
  atMs: 0,
  byteOffset: 0,
});

/** The default store: everything in memory, bounded per run by the retention limits. */
export class MemoryRunStore implements RunStore {
  readonly kind = "memory";
  readonly retention: RetentionLimits;
  private readonly runs = new Map<string, RunRecord>();
  private readonly logs = new Map<string, ItemLog>();
  private closed = false;

  constructor(retention: Partial<RetentionLimits> = {}) {
    this.retention = { ...DEFAULT_RETENTION, ...retention };
  }

  putRun(record: RunRecord): void {
    this.assertOpen(`store run ${record.id}`);
    this.runs.set(record.id, { ...record });
  }

  appendItems(runId: string, items: readonly RunItem[]): void {
    this.assertOpen(`append ${items.length} item(s) to run ${runId}`);
    let log = this.logs.get(runId);
    if (!log) {
      this.logs.set(
        runId,
        (log = {
          items: [],
          head: 0,
          window: new RetentionWindow(this.retention.maxItemsPerRun, this.retention.maxCharsPerRun),
        }),
      );
    }
    let floor = 0;
    for (const item of items) {
      log.items.push(item);
      floor = log.window.add(item.seq, item.text.length);
    }
    while (log.head < log.items.length && log.items[log.head]!.seq < floor) {
      log.items[log.head++] = DROPPED;
    }
    if (log.head > 1024 && log.head * 2 > log.items.length) {
      log.items = log.items.slice(log.head);
      log.head = 0;
    }
  }

  readItems(runId: string, query: ItemQuery): ItemPage {
    this.assertOpen(`read run ${runId}`);
    const log = this.logs.get(runId);
    const nextSeq = this.runs.get(runId)?.nextSeq ?? 0;
    if (!log || log.head >= log.items.length) {
      return { items: [], firstSeq: nextSeq };
    }
    const firstSeq = log.items[log.head]!.seq;
    const since = Math.max(query.sinceSeq ?? firstSeq, firstSeq);
    // Seqs are dense within a run, so the index is arithmetic.
    const start = log.head + (since - firstSeq);
    return { items: log.items.slice(start, start + Math.max(0, query.limit)), firstSeq };
  }

  allItems(runId: string): RunItem[] {
    this.assertOpen(`read run ${runId}`);
    const log = this.logs.get(runId);
    return log ? log.items.slice(log.head) : [];
  }

  lastItems(runId: string, limit: number): RunItem[] {
    this.assertOpen(`read run ${runId}`);
    const log = this.logs.get(runId);
    return log ? log.items.slice(Math.max(log.head, log.items.length - Math.max(0, limit))) : [];
  }

  getRun(runId: string): RunRecord | undefined {
    this.assertOpen(`read run ${runId}`);
    const record = this.runs.get(runId);
    return record ? { ...record } : undefined;
  }

  /** Oldest created first, as the SQLite store lists them (recovery claims runs in this order). */
  listRuns(where?: (record: RunRecord) => boolean): RunRecord[] {
    this.assertOpen("list runs");
    return (where === undefined ? [...this.runs.values()] : [...this.runs.values()].filter(where))
      .sort((a, b) => a.createdAtMs - b.createdAtMs)
      .map((r) => ({ ...r }));
  }

  deleteRun(runId: string): void {
    this.assertOpen(`delete run ${runId}`);
    this.runs.delete(runId);
    this.logs.delete(runId);
  }

  flush(): void {}

  /** Drops everything. Idempotent; every later call but flush/close throws `store_closed`. */
  close(): void {
    this.closed = true;
    this.runs.clear();
    this.logs.clear();
  }

  private assertOpen(what: string): void {
    if (this.closed) {
      throw storeClosed("the in-memory run store", what);
    }
  }
}
