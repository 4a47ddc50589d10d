import { messageOf } from "../../base/errors.js";
import type { RunItem, RunRecord } from "../../model/run-record.js";
import type { RunStore } from "../../store/types.js";
import type { OutputArchive } from "./output-archive.js";
import type { SpillFile } from "./spill-file.js";

/**
 * Whether one run's output goes to disk, and writing it there. A run's output stays in the store's
 * retention window alone while that holds all of it; once half the window is used (in characters
 * or in items: before retention could drop anything), everything so far is written to the run's
 * spill file, and from then on each piece of output as it comes, at its absolute byte offset.
 */
export class RunSpill {
  private file: SpillFile | undefined;
  private committedChars = 0;
  private committedItems = 0;
  private failure: string | null = null;

  constructor(
    private readonly archive: OutputArchive | undefined,
    private readonly store: RunStore,
    private readonly record: RunRecord,
  ) {
    if (!archive) {
      return;
    }
    // A run started again after a restart continues its spill, or counts what it holds so far.
    this.file = archive.existing(record.id);
    if (!this.file && record.nextSeq > 0) {
      this.guard(() => this.count(store.allItems(record.id)));
    }
  }

  /** Why spilling stopped (the disk or the store failed), if it did. */
  get failed(): string | null {
    return this.failure ?? this.file?.failed ?? null;
  }

  /**
   * Before items are stored (so retention has dropped nothing the spill still needs): `text` is
   * their output from byte `offset`. Starts the spill when these items take the run past half the
   * window, writing what the store holds first (all of it: nothing was dropped yet). `bytes`: the
   * text's UTF-8 when the caller has it.
   */
  beforeCommit(
    items: readonly RunItem[],
    output?: { offset: number; text: string; bytes?: Buffer | undefined },
  ): void {
    if (!this.archive || this.failure !== null) {
      return;
    }
    this.count(items);
    if (!this.file) {
      const { maxCharsPerRun, maxItemsPerRun } = this.store.retention;
      if (this.committedChars * 2 <= maxCharsPerRun && this.committedItems * 2 <= maxItemsPerRun) {
        return;
      }
      this.guard(() => {
        const file = this.archive!.create(this.record.id);
        for (const item of this.store.allItems(this.record.id)) {
          if (item.kind === "output") {
            file.write(item.byteOffset, Buffer.from(item.text, "utf8"));
          }
        }
        this.file = file;
      });
    }
    if (this.file && output && output.text.length > 0) {
      this.file.write(output.offset, output.bytes ?? Buffer.from(output.text, "utf8"));
    }
  }

  /** Writes what waits and closes the file (the run ended); reads keep working. */
  close(): void {
    this.file?.close();
  }

  private count(items: readonly RunItem[]): void {
    for (const item of items) {
      this.committedChars += item.text.length;
    }
    this.committedItems += items.length;
  }

  private guard(operation: () => void): void {
    try {
      operation();
    } catch (error) {
      this.failure = `spilling the output to disk failed (${messageOf(error)})`;
    }
  }
}
