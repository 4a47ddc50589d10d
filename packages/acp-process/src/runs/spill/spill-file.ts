import { writev, writeSync } from "node:fs";
import { messageOf } from "../../base/errors.js";
import { SEGMENT_BYTES, segmentOf, SegmentFiles } from "./segment-files.js";
import { StagingRing } from "./staging-ring.js";

export { SEGMENT_BYTES };

/**
 * Bytes waiting for the disk (queued and in flight) past which a write is done synchronously: the
 * event loop then stops reading the command's pipe for that long, which holds the command back
 * instead of letting memory grow when the disk is slower than the command. A flood keeps about
 * this much waiting (8 MiB, with a copy to join it, was ~16 MB of a server's RSS).
 */
const MAX_UNWRITTEN_BYTES = 1024 * 1024;

interface Unwritten {
  offset: number;
  bytes: Buffer;
}

interface InFlight {
  offset: number;
  /** Consecutive pieces, written with one writev. */
  parts: Buffer[];
  length: number;
}

/**
 * One run's spilled output: bytes at their absolute offset in the run's output, in segment files
 * `<dir>/<index>.out` of SEGMENT_BYTES (file position = offset within the segment, so a gap in the
 * output is a hole in the file). Writes are copied (the caller's bytes may be a view valid only
 * during the call: into a reused ring, see staging-ring.ts), queued and written in order off the
 * event loop, one at a time; a read sees queued bytes too. A segment can be evicted (deleted) once nothing is being
 * written to it; reading it afterwards says so.
 */
export class SpillFile {
  /** Bytes on disk (or queued for it) per segment index: the end of the furthest write in it. */
  readonly segments = new Map<number, number>();
  private queue: Unwritten[] = [];
  private inFlight: InFlight | null = null;
  private unwrittenBytes = 0;
  private readonly files: SegmentFiles;
  private failure: string | null = null;
  private closed = false;
  // Twice what may wait: a write in flight and a full queue both fit.
  private readonly staging = new StagingRing(2 * MAX_UNWRITTEN_BYTES);

  constructor(
    readonly dir: string,
    /** Told how many bytes each write adds on disk (for the quota). */
    private readonly grew: (bytes: number) => void,
  ) {
    this.files = new SegmentFiles(
      dir,
      (index) => this.inFlight !== null && segmentOf(this.inFlight.offset) === index,
    );
  }

  /** What made writing fail (disk full, directory removed), once it has; later writes are dropped. */
  get failed(): string | null {
    return this.failure;
  }

  /** Whether bytes are still on their way to the disk (queued, or a write in flight). */
  get busy(): boolean {
    return this.inFlight !== null || this.queue.length > 0;
  }

  /** The first offset still on disk (or queued), or undefined when everything was evicted. */
  get firstOffset(): number | undefined {
    const indexes = [...this.segments.keys()];
    return indexes.length === 0 ? undefined : Math.min(...indexes) * SEGMENT_BYTES;
  }

  /** Queues a copy of `bytes` at `offset`; written in order, off the event loop unless too much waits. */
  write(offset: number, bytes: Uint8Array): void {
    if (this.failure !== null || this.closed || bytes.length === 0) {
      return;
    }
    for (let at = 0; at < bytes.length;) {
      const index = segmentOf(offset + at);
      const room = (index + 1) * SEGMENT_BYTES - (offset + at);
      const piece = bytes.subarray(at, at + room);
      const end = offset + at + piece.length - index * SEGMENT_BYTES;
      const before = this.segments.get(index) ?? 0;
      if (end > before) {
        this.segments.set(index, end);
        this.grew(end - before);
      }
      this.queue.push({
        offset: offset + at,
        bytes: this.staging.copy(piece) ?? Buffer.from(piece),
      });
      this.unwrittenBytes += piece.length;
      at += piece.length;
    }
    if (this.unwrittenBytes > MAX_UNWRITTEN_BYTES) {
      this.flush();
    } else {
      this.pump();
    }
  }

  /** Writes everything queued now (blocking); used before close and when too much waits. */
  flush(): void {
    const queued = this.queue;
    this.queue = [];
    for (const piece of queued) {
      if (this.failure === null) {
        this.attempt(() =>
          writeSync(
            this.files.forWriting(piece.offset),
            piece.bytes,
            0,
            piece.bytes.length,
            piece.offset % SEGMENT_BYTES,
          ),
        );
      }
      this.unwrittenBytes -= piece.bytes.length;
      this.written(piece.bytes);
    }
  }

  /** A copy is on disk (or dropped): its span of the staging ring can be used again. */
  private written(bytes: Buffer): void {
    if (this.staging.holds(bytes)) {
      this.staging.release(bytes);
    }
  }

  /**
   * Up to `length` bytes from `offset`, across segments: `{bytes}` (fewer where the spill ends or
   * the next segment was evicted), or `{evicted}` when the segment holding `offset` was evicted
   * (or never written).
   */
  read(offset: number, length: number): { bytes: Buffer } | { evicted: true } {
    const parts: Buffer[] = [];
    let at = offset;
    for (let left = length; left > 0;) {
      const part = this.readSegment(at, left);
      if (part === undefined) {
        break;
      }
      parts.push(part);
      at += part.length;
      left -= part.length;
      if (part.length === 0 || at % SEGMENT_BYTES !== 0) {
        break; // the spill ends inside this segment
      }
    }
    return parts.length === 0
      ? { evicted: true }
      : { bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts) };
  }

  /** Bytes from `offset` to at most the end of its segment; undefined when the segment is gone. */
  private readSegment(offset: number, length: number): Buffer | undefined {
    const index = segmentOf(offset);
    const stored = this.segments.get(index);
    if (stored === undefined) {
      return undefined;
    }
    const within = offset - index * SEGMENT_BYTES;
    const wanted = Math.max(0, Math.min(length, stored - within));
    // Not zeroed: only what was read or overlaid is returned (`covered`).
    const bytes = Buffer.allocUnsafe(wanted);
    const got = this.files.read(index, within, bytes);
    // Bytes not yet on disk: the queue and the write in flight are newer than the file.
    // Only a contiguous run from the start counts: a gap would be stale memory (allocUnsafe).
    let covered = got;
    for (const piece of this.unwritten().sort((a, b) => a.offset - b.offset)) {
      const reach = overlay(bytes, offset, piece);
      if (reach > 0 && piece.offset - offset <= covered) {
        covered = Math.max(covered, reach);
      }
    }
    // A file removed or cut short by something else: what it lacks is missing, not zeros.
    return covered < wanted ? bytes.subarray(0, covered) : bytes;
  }

  /**
   * Deletes the oldest segment nothing is being written to; returns the bytes freed (0 = none
   * could be: only the segment in use is left).
   */
  evictOldest(): number {
    const busy = new Set<number>();
    for (const piece of this.unwritten()) {
      busy.add(segmentOf(piece.offset));
    }
    if (!this.closed) {
      busy.add(Math.max(-1, ...this.segments.keys()));
    }
    const oldest = [...this.segments.keys()]
      .filter((index) => !busy.has(index))
      .sort((a, b) => a - b)[0];
    if (oldest === undefined) {
      return 0;
    }
    const size = this.segments.get(oldest)!;
    this.segments.delete(oldest);
    this.files.remove(oldest);
    return size;
  }

  /** Writes what is queued and closes the file; reads keep working. Idempotent. */
  close(): void {
    if (this.closed) {
      return;
    }
    this.flush();
    this.closed = true;
    if (!this.inFlight) {
      this.files.closeAll();
      this.staging.dispose();
    }
  }

  /** The pieces not yet on disk: those of the write in flight, then the queue (oldest first). */
  private unwritten(): Unwritten[] {
    const pieces: Unwritten[] = [];
    if (this.inFlight) {
      let offset = this.inFlight.offset;
      for (const bytes of this.inFlight.parts) {
        pieces.push({ offset, bytes });
        offset += bytes.length;
      }
    }
    return pieces.concat(this.queue);
  }

  /** Starts the next queued write when none is in flight. */
  private pump(): void {
    if (this.inFlight || this.queue.length === 0 || this.failure !== null || this.closed) {
      return;
    }
    // Consecutive pieces of one segment go out as one write (gathered, not copied).
    const first = this.queue.shift()!;
    const parts = [first.bytes];
    let end = first.offset + first.bytes.length;
    while (
      this.queue.length > 0 &&
      this.queue[0]!.offset === end &&
      segmentOf(end) === segmentOf(first.offset)
    ) {
      const next = this.queue.shift()!;
      parts.push(next.bytes);
      end += next.bytes.length;
    }
    const piece: InFlight = { offset: first.offset, parts, length: end - first.offset };
    this.inFlight = piece;
    let fd: number;
    try {
      fd = this.files.forWriting(piece.offset);
    } catch (error) {
      this.fail(error);
      for (const part of parts) {
        this.written(part);
      }
      return;
    }
    writev(fd, parts, piece.offset % SEGMENT_BYTES, (error) => {
      this.inFlight = null;
      this.unwrittenBytes -= piece.length;
      for (const part of parts) {
        this.written(part);
      }
      if (error) {
        this.fail(error);
      }
      if (this.closed) {
        this.files.closeAll();
        this.staging.dispose();
        return;
      }
      this.pump();
    });
  }

  private attempt(operation: () => void): void {
    try {
      operation();
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    this.failure ??= messageOf(error);
    for (const piece of this.queue) {
      this.written(piece.bytes);
    }
    this.queue = [];
    this.unwrittenBytes = 0;
  }
}

/**
 * Copies the part of `piece` that falls in `[offset, offset + target.length)` into `target`;
 * returns how far into `target` it reaches (0 when it does not overlap).
 */
function overlay(target: Buffer, offset: number, piece: Unwritten): number {
  const from = Math.max(offset, piece.offset);
  const to = Math.min(offset + target.length, piece.offset + piece.bytes.length);
  if (from >= to) {
    return 0;
  }
  piece.bytes.copy(target, from - offset, from - piece.offset, to - piece.offset);
  return to - offset;
}
