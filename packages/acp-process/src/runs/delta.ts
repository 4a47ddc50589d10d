import type { ProviderOutput } from "../providers/types.js";
import { overlapLength } from "./overlap.js";

/** What a new snapshot adds to what we had read. */
export interface OutputDelta {
  text: string;
  /** Bytes the client dropped before we read them (exact, cursor mode). */
  lostBytes: number;
  /** Some output was lost in an unknown amount (snapshot mode, no overlap found). */
  lostUnknown: boolean;
  /** True when the increment was computed from cursors. */
  exact: boolean;
}

/**
 * Turns successive `terminal/output` snapshots into increments. With cursors (`totalBytes`,
 * `droppedBytes`) the increment is exact; without, it is derived by overlap with the previous
 * snapshot. Loss is reported, never invented.
 */
export class SnapshotDelta {
  private readBytes = 0;
  private previous = "";

  next(snapshot: ProviderOutput): OutputDelta {
    const { totalBytes, droppedBytes } = snapshot;
    if (typeof totalBytes === "number" && typeof droppedBytes === "number") {
      const exact = this.exact(snapshot.output, totalBytes, droppedBytes);
      if (exact) return exact;
    }
    return this.byOverlap(snapshot);
  }

  private exact(output: string, totalBytes: number, droppedBytes: number): OutputDelta | undefined {
    const bytes = Buffer.from(output, "utf8");
    // The text must be exactly the retained bytes, else byte arithmetic on it is meaningless.
    if (bytes.length !== totalBytes - droppedBytes || totalBytes < this.readBytes) return undefined;
    const from = Math.max(this.readBytes, droppedBytes);
    const lostBytes = from - this.readBytes;
    const text = bytes.subarray(from - droppedBytes).toString("utf8");
    this.readBytes = totalBytes;
    this.previous = output;
    return { text, lostBytes, lostUnknown: false, exact: true };
  }

  private byOverlap(snapshot: ProviderOutput): OutputDelta {
    const next = snapshot.output;
    const overlap = overlapLength(this.previous, next);
    const lostUnknown = this.previous.length > 0 && overlap === 0 && snapshot.truncated && next.length > 0;
    const text = next.slice(overlap);
    this.previous = next;
    this.readBytes += Buffer.byteLength(text, "utf8");
    return { text, lostBytes: 0, lostUnknown, exact: false };
  }
}
