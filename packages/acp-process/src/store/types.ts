import type { RunItem, RunRecord } from "../model/run-record.js";

export interface RetentionLimits {
  /** Items kept per run; older items are dropped (readers see the gap as `missedItems`). */
  maxItemsPerRun: number;
  /** Characters of item text kept per run. */
  maxCharsPerRun: number;
}

export interface ItemQuery {
  /** First seq wanted (inclusive). Default: the oldest retained. */
  sinceSeq?: number;
  /** Most items returned. */
  limit: number;
}

export interface ItemPage {
  items: RunItem[];
  /** Oldest seq still retained (== nextSeq when nothing is retained). */
  firstSeq: number;
}

/**
 * Where runs and their items live. Methods are synchronous (better-sqlite3 and memory both are);
 * a store may buffer appends but must flush them before it answers a read. `listRuns` lists the
 * oldest created first. After `close()` every call but `flush()` and `close()` throws
 * `store_closed` (a write is never dropped without a word). `test/store-contract.test.ts` runs the
 * same cases over every implementation.
 */
export interface RunStore {
  readonly kind: "memory" | "sqlite";
  readonly retention: RetentionLimits;
  /**
   * Where the manager spills output past the retention window when it has no directory of its
   * own: kept with the store (SQLite: `<file>.output`), so it outlives a restart. Undefined: a
   * temporary directory.
   */
  readonly outputDirectory?: string | undefined;
  /** Insert or replace. `urgent` writes through now (status changes), else may be batched. */
  putRun(record: RunRecord, options?: { urgent?: boolean }): void;
  appendItems(runId: string, items: readonly RunItem[]): void;
  readItems(runId: string, query: ItemQuery): ItemPage;
  /** All retained items of a run, oldest first (bounded by retention). */
  allItems(runId: string): RunItem[];
  /** The newest `limit` retained items, oldest first. */
  lastItems(runId: string, limit: number): RunItem[];
  getRun(runId: string): RunRecord | undefined;
  /** Copies of the runs `where` takes (all without it), oldest created first; `where` sees each stored record before any copy. */
  listRuns(where?: (record: RunRecord) => boolean): RunRecord[];
  deleteRun(runId: string): void;
  /** Writes what is buffered (nothing to do once closed). */
  flush(): void;
  /** Flushes and releases the store. Idempotent. */
  close(): void;
}

export const DEFAULT_RETENTION: RetentionLimits = {
  maxItemsPerRun: 10_000,
  maxCharsPerRun: 1_000_000,
};
