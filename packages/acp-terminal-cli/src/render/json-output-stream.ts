import { OutputBuffer } from "acp-terminal/internal";

/** Bytes of terminal output one `output` event carries at most. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** A terminal that exits while the reader lags: the newest bytes its last `output` event carries. */
export const LAGGING_FINAL_BYTES = 4 * 1024;
/** The command's first bytes, held while the reader lags until they are written: never skipped. */
export const FIRST_BYTES = 64 * 1024;
/**
 * The newest bytes held while the reader lags (per terminal), written once it caught up; older
 * ones are skipped, and said so. A quarter of the agent's usual limit: what a reader that fell
 * behind needs is where the output is now, and a flood's memory stays small.
 */
export const WAITING_BYTES = 256 * 1024;

const NEWLINE = 0x0a;

/** What an `output` event says beside its bytes. */
export interface OutputEventFields {
  /** Bytes of the command's output left out just before this event's. */
  skippedBytes?: number;
  /** Newlines among them: complete lines left out (the line this event starts is not among them). */
  skippedLines?: number;
  /** The event starts inside a line whose start was skipped (no newline in what was held). */
  partial?: true;
}

/** Writes one `output` event: the bytes (the next of the output) and what it says beside them. */
export type WriteEvent = (bytes: Uint8Array, fields: OutputEventFields) => void;

/** Buffers of what waited, kept for the next terminal that falls behind (their rings grown). */
const spareWaiting: OutputBuffer[] = [];
const MAX_SPARE_WAITING = 4;

/**
 * A buffer for what waits: a spare one when there is one. A reader that keeps up falls behind
 * for a moment after nearly every event of a flood (an event of control bytes is six times the
 * pipe's 64 KiB): a new buffer each time, grown again, was garbage in proportion to the output.
 */
function waitingBuffer(): OutputBuffer {
  return spareWaiting.pop() ?? new OutputBuffer(WAITING_BYTES);
}

function giveBack(buffer: OutputBuffer): void {
  if (spareWaiting.length < MAX_SPARE_WAITING) {
    buffer.reset();
    spareWaiting.push(buffer);
  }
}

function countNewlines(bytes: Uint8Array): number {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let at = view.indexOf(NEWLINE); at !== -1; at = view.indexOf(NEWLINE, at + 1)) {
    count++;
  }
  return count;
}

/** Bytes at the end of `bytes` that begin a character whose rest has not come (0 to 3). */
function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) {
      continue;
    }
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}

/** The largest cut at most `at` that does not fall inside a character (`at` itself past the end). */
function characterCut(bytes: Uint8Array, at: number): number {
  if (at >= bytes.length) {
    return bytes.length;
  }
  let cut = at;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80 && at - cut < 3) {
    cut--;
  }
  return cut === 0 ? at : cut;
}

/**
 * One of the CLI's terminals as `--json` writes its output, every chunk handed over as it arrives.
 * While the reader keeps up, each chunk is written at once, in events of at most MAX_EVENT_BYTES
 * cut on character boundaries, so that the events together are the output, byte for byte. While
 * it lags, chunks wait in a buffer of this stream's own (its newest WAITING_BYTES, whatever the
 * agent's `outputByteLimit`), and the command's first FIRST_BYTES wait apart, so the first event
 * always carries them. What waited too long is skipped, and the next event says exactly what:
 * `skippedBytes`, and `skippedLines` (the newlines among them); it resumes after a newline, or,
 * when none was held, says it starts inside a line (`partial`). A character split across chunks is
 * held back until its rest comes.
 */
export class JsonOutputStream {
  /** Stream offset up to which output was written or skipped. */
  #written = 0;
  #total = 0;
  /** Bytes of a character whose rest has not come, not written yet (nothing waits meanwhile). */
  readonly #carry = new Uint8Array(4);
  #carryLength = 0;
  /** While the reader lags: what waits, from stream offset `#waitingFrom` on. */
  #waiting: OutputBuffer | undefined;
  #waitingFrom = 0;
  /** Newlines in the bytes from `#written` to the end (counted while output waits). */
  #waitingNewlines = 0;
  /** The command's first bytes, from stream offset `FIRST_BYTES - #first.length`, while they wait. */
  #first: Uint8Array | undefined;
  /** A skip the next event says. */
  #skipped: { bytes: number; lines: number; partial: boolean } | undefined;
  #ended = false;

  constructor(private readonly writeEvent: WriteEvent) {}

  /** Whether output waits to be written. */
  get waiting(): boolean {
    return this.#waiting !== undefined;
  }

  /** A chunk of the command's output; written at once when `canWrite` and nothing waits. */
  append(chunk: Uint8Array, canWrite: () => boolean): void {
    if (chunk.byteLength === 0 || this.#ended) {
      return;
    }
    const start = this.#total;
    this.#total += chunk.byteLength;
    if (this.#waiting === undefined && canWrite()) {
      this.#writeNow(chunk, canWrite);
    } else {
      this.#hold(chunk, start);
    }
  }

  /** Writes what waits while `canWrite`, one event at a time; true once nothing waits. */
  drain(canWrite: () => boolean): boolean {
    while (this.#waiting !== undefined && canWrite()) {
      if (!this.#writeOne()) {
        this.#stopWaiting();
      }
    }
    return this.#waiting === undefined;
  }

  /**
   * The command ended: everything that waits is written, or, while the reader lags, the first
   * bytes still waiting and the newest LAGGING_FINAL_BYTES (what lies between is skipped, and said).
   */
  end(lagging: boolean): void {
    this.#ended = true;
    if (this.#waiting === undefined) {
      if (this.#carryLength > 0) {
        this.#emit(this.#carry.subarray(0, this.#carryLength));
        this.#carryLength = 0;
      }
      return;
    }
    this.#waiting.end();
    if (lagging) {
      this.#writeFirst();
      const newest = this.#waitingFrom + this.#waiting.totalBytes - LAGGING_FINAL_BYTES;
      if (newest > this.#written) {
        this.#skipTo(newest);
      }
    }
    while (this.#writeOne()) {
      // until everything that waited is written
    }
    if (this.#skipped !== undefined) {
      this.#emit(new Uint8Array(0));
    }
    this.#stopWaiting();
  }

  #writeNow(chunk: Uint8Array, canWrite: () => boolean): void {
    let bytes = chunk;
    if (this.#carryLength > 0) {
      bytes = new Uint8Array(this.#carryLength + chunk.byteLength);
      bytes.set(this.#carry.subarray(0, this.#carryLength));
      bytes.set(chunk, this.#carryLength);
      this.#carryLength = 0;
    }
    const end = bytes.byteLength - incompleteTail(bytes);
    let at = 0;
    while (at < end && canWrite()) {
      const cut = characterCut(bytes, Math.min(end, at + MAX_EVENT_BYTES));
      this.#emit(bytes.subarray(at, cut));
      at = cut;
    }
    if (at < end) {
      // The reader fell behind within the chunk: the rest waits.
      this.#hold(bytes.subarray(at), this.#written);
      return;
    }
    this.#carry.set(bytes.subarray(end));
    this.#carryLength = bytes.byteLength - end;
  }

  /** `bytes`, from stream offset `start`, wait (after a carried character, which waits too). */
  #hold(bytes: Uint8Array, start: number): void {
    if (this.#waiting === undefined) {
      this.#waiting = waitingBuffer();
      this.#waitingFrom = this.#written;
      if (this.#written < FIRST_BYTES) {
        this.#first = new Uint8Array(FIRST_BYTES - this.#written);
      }
      if (this.#carryLength > 0) {
        const carried = this.#carry.slice(0, this.#carryLength);
        this.#carryLength = 0;
        this.#hold(carried, this.#written);
      }
    }
    if (this.#first !== undefined) {
      const at = start - (FIRST_BYTES - this.#first.byteLength);
      if (at < this.#first.byteLength) {
        this.#first.set(bytes.subarray(0, this.#first.byteLength - at), at);
      }
    }
    this.#waiting.append(bytes);
    this.#waitingNewlines += countNewlines(bytes);
  }

  /** Writes one event of what waits (saying a skip before it); false when nothing was left. */
  #writeOne(): boolean {
    const waiting = this.#waiting!;
    if (this.#writeFirst()) {
      return true;
    }
    const oldest = this.#waitingFrom + waiting.droppedBytes;
    if (oldest > this.#written) {
      this.#skipTo(oldest);
    }
    const { bytes, fromByte } = waiting.viewSince(
      this.#written - this.#waitingFrom,
      MAX_EVENT_BYTES,
    );
    if (bytes.byteLength === 0) {
      return false;
    }
    this.#waitingNewlines -= countNewlines(bytes);
    this.#written = this.#waitingFrom + fromByte;
    this.#emit(bytes);
    return true;
  }

  /**
   * Writes the first bytes that wait apart, when what waits no longer holds them all (else they
   * are read from there): true when it wrote some.
   */
  #writeFirst(): boolean {
    const first = this.#first;
    if (first === undefined) {
      return false;
    }
    this.#first = undefined;
    const firstFrom = FIRST_BYTES - first.byteLength;
    const heldTo = Math.min(FIRST_BYTES, this.#total);
    if (
      heldTo <= this.#written ||
      this.#waitingFrom + this.#waiting!.droppedBytes <= this.#written
    ) {
      return false;
    }
    // What waits dropped bytes of them, so it holds more than FIRST_BYTES: the first bytes are
    // complete. Stop before a character their end splits (its rest was dropped: the skip says so).
    const held = first.subarray(this.#written - firstFrom, heldTo - firstFrom);
    const bytes = held.subarray(0, held.byteLength - incompleteTail(held));
    this.#waitingNewlines -= countNewlines(bytes);
    this.#emit(bytes);
    return bytes.byteLength > 0;
  }

  /**
   * Skips from what was written to the first line that starts at or after `offset` in what waits
   * (to `offset` itself, `partial`, when none does): the next event says so.
   */
  #skipTo(offset: number): void {
    const waiting = this.#waiting!;
    let resume: number | undefined;
    let partialFrom: number | undefined;
    for (let at = offset - this.#waitingFrom; ;) {
      const { bytes, fromByte } = waiting.viewSince(at);
      partialFrom ??= this.#waitingFrom + fromByte;
      if (bytes.byteLength === 0) {
        break;
      }
      const newline = bytes.indexOf(NEWLINE);
      if (newline !== -1) {
        resume = this.#waitingFrom + fromByte + newline + 1;
        break;
      }
      at = fromByte + bytes.byteLength;
    }
    const to = resume ?? partialFrom;
    const after = this.#newlinesFrom(to);
    const skipped = this.#skipped ?? { bytes: 0, lines: 0, partial: false };
    skipped.bytes += to - this.#written;
    skipped.lines += this.#waitingNewlines - after;
    skipped.partial = resume === undefined;
    this.#skipped = skipped;
    this.#waitingNewlines = after;
    this.#written = to;
  }

  /** Newlines in what waits from stream offset `offset` to its end. */
  #newlinesFrom(offset: number): number {
    let count = 0;
    for (let at = offset - this.#waitingFrom; ;) {
      const { bytes, fromByte } = this.#waiting!.viewSince(at);
      if (bytes.byteLength === 0) {
        return count;
      }
      count += countNewlines(bytes);
      at = fromByte + bytes.byteLength;
    }
  }

  /** Nothing waits any more: a character whose rest has not come is carried; the buffer goes. */
  #stopWaiting(): void {
    const waiting = this.#waiting;
    if (waiting === undefined) {
      return;
    }
    const tail = this.#ended ? new Uint8Array(0) : waiting.pendingTail();
    this.#carry.set(tail);
    this.#carryLength = tail.byteLength;
    this.#waiting = undefined;
    giveBack(waiting);
    this.#first = undefined;
    this.#waitingNewlines = 0;
  }

  /** Writes `bytes` (the next of the output) in one event, with the skip before them if any. */
  #emit(bytes: Uint8Array): void {
    const skipped = this.#skipped;
    this.#skipped = undefined;
    this.#written += bytes.byteLength;
    this.writeEvent(
      bytes,
      skipped === undefined
        ? {}
        : {
            skippedBytes: skipped.bytes,
            skippedLines: skipped.lines,
            ...(skipped.partial ? { partial: true as const } : {}),
          },
    );
  }
}
