import { closeSync, constants, fstatSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";

/** A run's spilled output is cut into files of this many bytes, so the oldest part can be evicted alone. */
export const SEGMENT_BYTES = 16 * 1024 * 1024;

/** The index of the segment holding `offset`. */
export function segmentOf(offset: number): number {
  return Math.floor(offset / SEGMENT_BYTES);
}

/**
 * The segment files of one spill directory (`<dir>/<index>.out`) and the descriptors kept open
 * for writing them: at most the segment being written and the one before it.
 */
export class SegmentFiles {
  /** Open for writing, by segment index. */
  private readonly fds = new Map<number, number>();

  constructor(
    readonly dir: string,
    /** Whether a write to the segment is in flight (its descriptor must stay open). */
    private readonly writing: (index: number) => boolean,
  ) {}

  /** The descriptor to write the segment holding `offset` with, opened (or created) on first use. */
  forWriting(offset: number): number {
    const index = segmentOf(offset);
    let fd = this.fds.get(index);
    if (fd === undefined) {
      // Not truncated: a run started again after a restart continues its last segment.
      fd = openSync(segmentPath(this.dir, index), constants.O_RDWR | constants.O_CREAT, 0o600);
      this.fds.set(index, fd);
      // Segments before the previous one are complete: nothing writes there any more.
      for (const open of this.fds.keys()) {
        if (open < index - 1 && !this.writing(open)) {
          this.close(open);
        }
      }
    }
    return fd;
  }

  /**
   * Reads segment `index` from `position` into `target` until it is full or the file ends;
   * returns the bytes read (0 when the file is not there: queued, not written yet).
   */
  read(index: number, position: number, target: Buffer): number {
    let fd: number;
    try {
      // No access-time update: after a large spill the journal is busy writing it back, and the
      // first read of each segment would wait for it (reads of 5-25 ms instead of 0.05).
      fd = openSync(segmentPath(this.dir, index), constants.O_RDONLY | (constants.O_NOATIME ?? 0));
    } catch {
      return 0; // queued, not written yet: the caller overlays what is queued
    }
    let got = 0;
    try {
      for (let n = -1; got < target.length && n !== 0; got += n) {
        n = readSync(fd, target, got, target.length - got, position + got);
      }
    } finally {
      closeSync(fd);
    }
    return got;
  }

  /** Closes and deletes segment `index`. */
  remove(index: number): void {
    this.close(index);
    rmSync(segmentPath(this.dir, index), { force: true });
  }

  close(index: number): void {
    const fd = this.fds.get(index);
    if (fd !== undefined) {
      this.fds.delete(index);
      closeSync(fd);
    }
  }

  closeAll(): void {
    for (const index of [...this.fds.keys()]) {
      this.close(index);
    }
  }
}

export function segmentPath(dir: string, index: number): string {
  return join(dir, `${String(index).padStart(6, "0")}.out`);
}

/** Segment sizes of a spill directory written before (after a restart): index → bytes. */
export function existingSegments(dir: string, names: readonly string[]): Map<number, number> {
  const segments = new Map<number, number>();
  for (const name of names) {
    const match = /^(\d{6})\.out$/.exec(name);
    if (!match) {
      continue;
    }
    try {
      const fd = openSync(join(dir, name), "r");
      try {
        segments.set(Number(match[1]), fstatSync(fd).size);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Removed meanwhile: not there.
    }
  }
  return segments;
}
