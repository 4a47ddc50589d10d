import { fstatSync } from "node:fs";
import { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { readPipe } from "acp-terminal/internal";
import { LineSplitter } from "../agent/line-splitter.js";
import { MAX_MESSAGE_BYTES } from "../agent/ndjson-stdio.js";

/**
 * Bytes the editor's LineReader still reads and holds while paused, so that it sees the editor's
 * end (stdin closed while the agent reads nothing) behind what the editor sent last: the pipe's
 * own 64 KiB and more, while a flood is still held back through the pipe past it.
 */
export const READ_AHEAD_BYTES = 1024 * 1024;

/** Most bytes passed on from the held ones at a time, so that a pause between lines stops them. */
const REPLAY_PIECE_BYTES = 64 * 1024;

/**
 * One side's lines as they arrive: each complete line goes to `line` as a view valid during the
 * call (the pipe is read into one reused buffer: see acp-terminal's `readPipe`); a line past
 * MAX_MESSAGE_BYTES goes to `tooLong`, its bytes dropped. `pause()` stops reading after the chunk
 * being read, so a peer that is slow to take what is written to it holds its sender back through
 * the pipe, not through memory here; with `readAheadBytes`, a paused reader first reads that many
 * bytes more into one buffer of its own, so that it still sees its side's end behind a pipe's
 * worth (at the end, what is held is passed on and `ended` resolves).
 */
export class LineReader {
  readonly #source: Readable;
  readonly #lines: LineSplitter;
  readonly #readAheadBytes: number;
  #paused = false;
  /** Bytes read while paused, not passed on yet: `#hold[#start, #end)` (allocated when first needed). */
  #hold: Buffer | undefined;
  #start = 0;
  #end = 0;
  #replaying = false;
  /** Set once the stream ended: what is held is passed on whole, paused or not. */
  #ending = false;
  /** Resolves when the stream ends or fails (its last line read). */
  readonly ended: Promise<void>;

  constructor(
    stream: Readable,
    line: (bytes: Buffer) => void,
    tooLong: () => void,
    readAheadBytes = 0,
  ) {
    const lines = new LineSplitter(MAX_MESSAGE_BYTES, line, tooLong);
    this.#lines = lines;
    this.#readAheadBytes = readAheadBytes;
    this.#source = readPipe(stream, (chunk) => {
      if (this.#paused && this.#readAheadBytes > 0) {
        this.#keep(chunk);
      } else {
        lines.push(chunk);
      }
      return !this.#paused || this.#end - this.#start < this.#readAheadBytes;
    });
    this.ended = new Promise((resolve) => {
      const done = () => {
        this.#ending = true;
        this.#replay();
        lines.end();
        resolve();
      };
      this.#source.once("end", done);
      this.#source.once("error", done);
      this.#source.once("close", done);
    });
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) {
      return;
    }
    this.#paused = false;
    this.#replay();
    if (!this.#paused) {
      this.#source.resume();
    }
  }

  /** Stops reading for good. */
  destroy(): void {
    this.#source.destroy();
  }

  /** Appends a chunk read while paused to the held bytes (moved to the front, or grown, to fit). */
  #keep(chunk: Uint8Array): void {
    const held = this.#end - this.#start;
    const current = (this.#hold ??= Buffer.allocUnsafe(this.#readAheadBytes));
    let hold = current;
    if (this.#end + chunk.byteLength > hold.length) {
      if (held + chunk.byteLength > hold.length) {
        hold = Buffer.allocUnsafe(held + chunk.byteLength); // a chunk larger than a pipe read
      }
      current.copy(hold, 0, this.#start, this.#end);
      this.#hold = hold;
      this.#start = 0;
      this.#end = held;
    }
    hold.set(chunk, this.#end);
    this.#end += chunk.byteLength;
  }

  /** Passes on the bytes held, in order, until a line pauses the reader again (at the end, all). */
  #replay(): void {
    if (this.#replaying || this.#hold === undefined) {
      return; // resumed from a line being passed on: the loop below goes on
    }
    this.#replaying = true;
    while ((this.#ending || !this.#paused) && this.#start < this.#end) {
      const piece = Math.min(this.#end - this.#start, REPLAY_PIECE_BYTES);
      const view = this.#hold.subarray(this.#start, this.#start + piece);
      this.#start += piece;
      this.#lines.push(view);
    }
    if (this.#start === this.#end) {
      this.#start = 0;
      this.#end = 0;
    }
    this.#replaying = false;
  }
}

/** Bytes of one slab that lines passed on are copied into. */
const SLAB_BYTES = 1024 * 1024;
/** How long the proxy waits, at its end, for a side to read what was written to it. */
const FLUSH_MS = 30_000;
/** Slabs kept for reuse once their writes are done; more are let go. */
const KEPT_SLABS = 4;
/**
 * Bytes a side may leave unread before the messages the proxy makes for it (answers, errors, tool
 * call updates) are dropped: a peer that never reads must not grow the proxy's memory.
 */
export const MAX_UNREAD_BYTES = 64 * 1024 * 1024;

/** A buffer lines are copied into, reused once every write from it has been flushed. */
interface Slab {
  bytes: Buffer;
  used: number;
  /** Writes from it not yet flushed. */
  pending: number;
}

/**
 * One side's lines as the proxy writes them: a line read from the other side (a view: copied here,
 * since the stream keeps what it has not flushed yet) or a message the proxy makes, each followed
 * by a newline, in the order written. Lines are copied into slabs that are reused once their
 * writes are flushed: a buffer of their own per line (a flood's 87 KB chunks) is native memory
 * that V8 frees only when its external-memory pressure triggers a collection, tens of MB and
 * hundreds of ms of GC over 100 MiB. `full` says the stream holds more than its high-water mark;
 * the reader feeding it pauses until `drained`. A write error (EPIPE: the peer closed) calls
 * `gone` once; later writes are dropped.
 */
export class LineWriter {
  #gone = false;
  #dropped = 0;
  #slab: Slab | undefined;
  readonly #spare: Slab[] = [];

  constructor(
    private readonly stream: Writable,
    gone: (error: Error) => void,
    /** Told once when a message is first dropped (the side reads nothing). */
    private readonly firstDrop: () => void = () => undefined,
  ) {
    stream.on("error", (error) => {
      if (!this.#gone) {
        this.#gone = true;
        gone(error);
      }
    });
  }

  get isGone(): boolean {
    return this.#gone || this.stream.destroyed || this.stream.writableEnded;
  }

  /** True while the stream holds more than its high-water mark (pause what feeds it). */
  get full(): boolean {
    return this.stream.writableNeedDrain;
  }

  /** Calls `then` once the stream has drained (at once when it is not full). */
  drained(then: () => void): void {
    if (!this.full || this.isGone) {
      then();
      return;
    }
    this.stream.once("drain", then);
  }

  /** Writes a line received (without its newline) as it came. */
  line(bytes: Uint8Array): void {
    if (this.isGone) {
      return;
    }
    const size = bytes.byteLength + 1;
    if (size > SLAB_BYTES) {
      const copy = Buffer.allocUnsafe(size);
      copy.set(bytes, 0);
      copy[bytes.byteLength] = 0x0a;
      this.stream.write(copy);
      return;
    }
    const slab = this.#slabFor(size);
    const view = slab.bytes.subarray(slab.used, slab.used + size);
    view.set(bytes, 0);
    view[bytes.byteLength] = 0x0a;
    slab.used += size;
    slab.pending++;
    this.stream.write(view, () => this.#flushed(slab));
  }

  /** The slab with room for `size` bytes: the current one, a spare one flushed, or a new one. */
  #slabFor(size: number): Slab {
    const current = this.#slab;
    if (current !== undefined && current.used + size <= SLAB_BYTES) {
      return current;
    }
    if (current !== undefined && current.pending === 0) {
      current.used = 0;
      return current;
    }
    const spare = this.#spare.pop();
    const next = spare ?? { bytes: Buffer.allocUnsafe(SLAB_BYTES), used: 0, pending: 0 };
    next.used = 0;
    this.#slab = next;
    return next;
  }

  /** A write from `slab` was flushed: once none is left, a slab no longer current is spare. */
  #flushed(slab: Slab): void {
    slab.pending--;
    if (slab.pending === 0 && slab !== this.#slab && this.#spare.length < KEPT_SLABS) {
      this.#spare.push(slab);
    }
  }

  /** Messages the proxy made that were dropped because the side left MAX_UNREAD_BYTES unread. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Writes a message the proxy made (dropped while the side leaves MAX_UNREAD_BYTES unread). */
  message(value: unknown): void {
    if (this.isGone) {
      return;
    }
    if (this.stream.writableLength > MAX_UNREAD_BYTES) {
      if (this.#dropped++ === 0) {
        this.firstDrop();
      }
      return;
    }
    this.stream.write(`${JSON.stringify(value)}\n`);
  }

  /**
   * Resolves once what was written is flushed (at most `timeoutMs`, default FLUSH_MS: a reader
   * that takes longer loses the rest); `end` closes the stream too (not this process's stdout,
   * which stays open until it exits).
   */
  async flush(options: { end?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (this.isGone) {
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.timeoutMs ?? FLUSH_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (options.end === true) {
        this.stream.end(done);
      } else {
        this.stream.write("", done);
      }
    });
  }
}

/**
 * Where the proxy writes to the editor: this process's stdout, as a stream whose writes do not
 * block. Node makes a stdout pipe blocking (a write waits until the reader has taken the bytes),
 * which serializes the relay: while the editor reads a chunk the proxy cannot read the agent's
 * next. A socket of its own on fd 1 writes without blocking, queues what the pipe cannot take yet,
 * and says when it is full, so the reader feeding it pauses instead. Anything but a pipe (a file,
 * a TTY, a stream a test gives) is written as given.
 */
export function editorOutput(stdout: Writable): Writable {
  if (stdout !== process.stdout) {
    return stdout;
  }
  try {
    if (!fstatSync(1).isFIFO()) {
      return stdout;
    }
  } catch {
    return stdout; // no fd 1 to look at: write as Node does
  }
  return new Socket({ fd: 1, readable: false, writable: true });
}
