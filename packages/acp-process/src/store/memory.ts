import type { RunItem, RunRecord } from "../runs/types.js";
import { DEFAULT_RETENTION, type ItemPage, type ItemQuery, type RetentionLimits, type RunStore } from "./types.js";

interface ItemLog {
  items: RunItem[];
  /** Index of the oldest retained item in `items` (head of the queue). */
  head: number;
  chars: number;
}

/** The default store: everything in memory, bounded per run by the retention limits. */
export class MemoryRunStore implements RunStore {
  readonly kind = "memory";
  readonly retention: RetentionLimits;
  private readonly runs = new Map<string, RunRecord>();
  private readonly logs = new Map<string, ItemLog>();

  constructor(retention: Partial<RetentionLimits> = {}) {
    this.retention = { ...DEFAULT_RETENTION, ...retention };
  }

  putRun(record: RunRecord): void {
    this.runs.set(record.id, { ...record });
  }

  appendItems(runId: string, items: readonly RunItem[]): void {
    let log = this.logs.get(runId);
    if (!log) this.logs.set(runId, (log = { items: [], head: 0, chars: 0 }));
    for (const item of items) {
      log.items.push(item);
      log.chars += item.text.length;
    }
    const { maxItemsPerRun, maxCharsPerRun } = this.retention;
    while (log.items.length - log.head > maxItemsPerRun || (log.chars > maxCharsPerRun && log.items.length - log.head > 1)) {
      log.chars -= log.items[log.head]!.text.length;
      log.head++;
    }
    if (log.head > 1024 && log.head * 2 > log.items.length) {
      log.items = log.items.slice(log.head);
      log.head = 0;
    }
  }

  readItems(runId: string, query: ItemQuery): ItemPage {
    const log = this.logs.get(runId);
    const nextSeq = this.runs.get(runId)?.nextSeq ?? 0;
    if (!log || log.head >= log.items.length) return { items: [], firstSeq: nextSeq };
    const firstSeq = log.items[log.head]!.seq;
    const since = Math.max(query.sinceSeq ?? firstSeq, firstSeq);
    // Seqs are dense within a run, so the index is arithmetic.
    const start = log.head + (since - firstSeq);
    return { items: log.items.slice(start, start + Math.max(0, query.limit)), firstSeq };
  }

  allItems(runId: string): RunItem[] {
    const log = this.logs.get(runId);
    return log ? log.items.slice(log.head) : [];
  }

  lastItems(runId: string, limit: number): RunItem[] {
    const log = this.logs.get(runId);
    return log ? log.items.slice(Math.max(log.head, log.items.length - Math.max(0, limit))) : [];
  }

  getRun(runId: string): RunRecord | undefined {
    const record = this.runs.get(runId);
    return record ? { ...record } : undefined;
  }

  listRuns(): RunRecord[] {
    return [...this.runs.values()].map((r) => ({ ...r }));
  }

  deleteRun(runId: string): void {
    this.runs.delete(runId);
    this.logs.delete(runId);
  }

  flush(): void {}

  close(): void {
    this.runs.clear();
    this.logs.clear();
  }
}
