/**
 * A published terminal's output not sent yet: held up to `coalesceMs` so that a burst goes out as
 * one chunk, or flagged for a snapshot (`resync`) after the backlog bound dropped it.
 */
export class PendingOutput {
  private chunks: Buffer[] = [];
  private byteCount = 0;
  private timer: NodeJS.Timeout | null = null;
  /** A backlog dropped this terminal's chunks: the next flush sends a snapshot instead. */
  resync = false;

  get bytes(): number {
    return this.byteCount;
  }

  add(bytes: Buffer): void {
    this.chunks.push(bytes);
    this.byteCount += bytes.length;
  }

  /** Runs `flush` after `ms`, unless a timer is armed already or something takes the output first. */
  flushAfter(ms: number, flush: () => void): void {
    this.timer ??= setTimeout(flush, ms);
  }

  /** Everything pending, as one buffer; nothing is pending afterwards (`resync` aside). */
  take(): Buffer {
    this.stopTimer();
    const bytes = Buffer.concat(this.chunks, this.byteCount);
    this.chunks = [];
    this.byteCount = 0;
    return bytes;
  }

  /** Drops what is pending, `resync` included (a snapshot sent holds it). */
  discard(): void {
    this.take();
    this.resync = false;
  }

  stopTimer(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }
}
