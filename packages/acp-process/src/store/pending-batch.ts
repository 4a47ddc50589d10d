import type { RunItem, RunRecord } from "../model/run-record.js";
import { RetentionWindow } from "./retention-window.js";
import type { RetentionLimits } from "./types.js";

/** An item waiting to be written, with its run. */
export interface PendingItem {
  runId: string;
  item: RunItem;
}

/**
 * What a batching store has not written yet (items and run records), and per run its prune floor:
 * the smallest seq the retention limits keep once the pending items are in.
 */
export class PendingBatch {
  readonly items: PendingItem[] = [];
  /** The last record put per run, copied. */
  readonly runs = new Map<string, RunRecord>();
  private readonly windows = new Map<string, RetentionWindow>();
  private readonly floors = new Map<string, number>();

  constructor(
    private readonly retention: RetentionLimits,
    /** The seq and text of the run's items already in the file, by seq. */
    private readonly stored: (runId: string) => readonly { seq: number; text: string }[],
  ) {}

  get isEmpty(): boolean {
    return this.items.length === 0 && this.runs.size === 0;
  }

  addItems(runId: string, items: readonly RunItem[]): void {
    const window = this.windowOf(runId);
    for (const item of items) {
      this.items.push({ runId, item });
      this.floors.set(runId, window.add(item.seq, item.text.length));
    }
  }

  /** Items of the run below this seq are beyond retention: the write prunes them. */
  floor(runId: string): number {
    return this.floors.get(runId) ?? 0;
  }

  /**
   * Items below their run's prune floor would be deleted by the same transaction that writes
   * them, so dropping them first changes nothing stored; it also bounds what waits while writes
   * fail (disk full) to the retention limits of each run.
   */
  dropBeyondRetention(): void {
    let kept = 0;
    for (const pending of this.items) {
      if (pending.item.seq >= this.floor(pending.runId)) {
        this.items[kept++] = pending;
      }
    }
    this.items.length = kept;
  }

  /** After a write: nothing is pending. */
  clear(): void {
    this.items.length = 0;
    this.runs.clear();
  }

  /** The run was deleted: its window goes too. */
  forget(runId: string): void {
    this.windows.delete(runId);
    this.floors.delete(runId);
  }

  /**
   * The retention window of a run, rebuilt from the rows already in the file the first time the
   * run is appended to by this instance: a reopened store's first append (the recovery notice, a
   * claimed run's output) must prune only what retention allows, not everything written before.
   * Bounded by the retention limits (the file never holds more for one run).
   */
  private windowOf(runId: string): RetentionWindow {
    let window = this.windows.get(runId);
    if (window) {
      return window;
    }
    window = new RetentionWindow(this.retention.maxItemsPerRun, this.retention.maxCharsPerRun);
    for (const row of this.stored(runId)) {
      this.floors.set(runId, window.add(row.seq, row.text.length));
    }
    this.windows.set(runId, window);
    return window;
  }
}
