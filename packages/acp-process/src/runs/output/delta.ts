import type { ProviderOutput } from "../../providers/types.js";
import { overlapLength } from "./overlap.js";

/** Below this, an overlap with a truncated snapshot is not trusted to rule out loss. */
const MIN_TRUSTED_OVERLAP_CHARS = 32;

/** What a new snapshot adds to what we had read. */
export interface OutputDelta {
  text: string;
  /** Bytes the client dropped before we read them (exact, cursor mode). */
  lostBytes: number;
  /** Some output was (or may have been) lost in an unknown amount (snapshot mode, no trusted overlap). */
  lostUnknown: boolean;
  /** True when the increment was computed from cursors. */
  exact: boolean;
}

/**
 * Turns successive `terminal/output` snapshots into increments. With cursors (`totalBytes`,
 * `droppedBytes`) the increment is exact; without, it is derived by overlap with the previous
 * snapshot. A client with exact increments (`sinceByte` asked, `fromByte` answered) sends only
 * new text: it is taken as is. Loss is reported, never invented.
 */
export class SnapshotDelta {
  private readBytes = 0;
  private previous = "";
  /** True while `readBytes` is a stream offset: no increment was ever derived by overlap. */
  private onStreamOffsets = true;
  private sinceRefused = false;

  /**
   * The offset to ask the client for (`sinceByte`), or undefined when increments cannot be
   * trusted: the client answered a `sinceByte` read without `fromByte`, or we lost the offsets.
   */
  get sinceByte(): number | undefined {
    return this.onStreamOffsets && !this.sinceRefused ? this.readBytes : undefined;
  }

  /** Bytes that arrived another way (pushed by the provider, or dropped before it): the next increment starts after them. */
  advance(bytes: number): void {
    this.readBytes += bytes;
  }

  /** `sinceByte` is what the read asked for, if it asked for an increment. */
  next(snapshot: ProviderOutput, sinceByte?: number): OutputDelta {
    const { totalBytes, droppedBytes } = snapshot;
    if (sinceByte !== undefined) {
      if (typeof snapshot.fromByte === "number" && typeof totalBytes === "number") {
        const increment = this.increment(snapshot.output, sinceByte, snapshot.fromByte, totalBytes);
        if (increment) {
          return increment;
        }
        this.sinceRefused = true;
        // An answer we cannot place: take nothing from it; the next (whole) snapshot continues from readBytes.
        return { text: "", lostBytes: 0, lostUnknown: false, exact: false };
      }
      this.sinceRefused = true; // the client ignored sinceByte and sent the whole tail
    }
    if (typeof totalBytes === "number" && typeof droppedBytes === "number") {
      const exact = this.exact(snapshot.output, totalBytes, droppedBytes);
      if (exact) {
        return exact;
      }
    }
    return this.byOverlap(snapshot);
  }

  private exact(output: string, totalBytes: number, droppedBytes: number): OutputDelta | undefined {
    const bytes = Buffer.from(output, "utf8");
    // The text must be exactly the retained bytes, else byte arithmetic on it is meaningless.
    if (bytes.length !== totalBytes - droppedBytes || totalBytes < this.readBytes) {
      return undefined;
    }
    const from = Math.max(this.readBytes, droppedBytes);
    const lostBytes = from - this.readBytes;
    const text = bytes.subarray(from - droppedBytes).toString("utf8");
    this.readBytes = totalBytes;
    this.previous = output;
    return { text, lostBytes, lostUnknown: false, exact: true };
  }

  private increment(
    output: string,
    sinceByte: number,
    fromByte: number,
    totalBytes: number,
  ): OutputDelta | undefined {
    if (sinceByte !== this.readBytes || fromByte < sinceByte || totalBytes < fromByte) {
      return undefined;
    }
    this.readBytes = totalBytes;
    return { text: output, lostBytes: fromByte - sinceByte, lostUnknown: false, exact: true };
  }

  private byOverlap(snapshot: ProviderOutput): OutputDelta {
    this.onStreamOffsets = false;
    const next = snapshot.output;
    const overlap = overlapLength(this.previous, next);
    // The client cut its output: a short overlap may be a coincidence ("0000" ending one snapshot
    // and starting the next), so output may have been lost between them. Say so.
    // A first snapshot that is already truncated has lost its beginning for certain.
    const lostUnknown =
      snapshot.truncated &&
      next.length > 0 &&
      (this.previous.length === 0 ||
        overlap < Math.min(MIN_TRUSTED_OVERLAP_CHARS, this.previous.length));
    const text = next.slice(overlap);
    this.previous = next;
    this.readBytes += Buffer.byteLength(text, "utf8");
    return { text, lostBytes: 0, lostUnknown, exact: false };
  }
}
