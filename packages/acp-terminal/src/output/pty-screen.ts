import type { OutputBuffer } from "./output-buffer.js";
import { stripCutEscapeTail } from "./pty-text.js";
import { Screen, scrollbackLinesFor } from "./screen.js";

/** Longest a read spends parsing bytes that arrived since the last read, in ms (see `PtyScreen`). */
export const RENDER_DEADLINE_MS = 200;
/** Bytes parsed between two looks at the clock. */
const SLICE_BYTES = 64 * 1024;

/** A PTY terminal's output as rendered text, with the byte cursors it corresponds to. */
export interface RenderedOutput {
  output: string;
  truncated: boolean;
  /** Stream offset of the end of the bytes the text renders. */
  totalBytes: number;
}

/**
 * What a PTY terminal's output looks like on its screen: the terminal's `OutputBuffer` holds the
 * raw bytes (the limit and both cursors count them, exactly as for pipes), and a `Screen` at the
 * terminal's size renders them. The screen is fed lazily, on reads: each read parses only the
 * bytes that arrived since the last one (never the whole history again), so a terminal nobody
 * reads costs no parsing, and parsing stops at `deadlineMs` so a read never hangs; the text then
 * renders bytes up to `totalBytes` and the next read goes on from there. When bytes the screen
 * never saw were dropped by the limit, it starts again from the retained bytes (their first
 * line may begin with the tail of a cut escape sequence, which is dropped as for `renderPtyText`).
 *
 * The text is cut from the front to `outputByteLimit` UTF-8 bytes on a character boundary: a
 * screen can render more text than the bytes that drew it (`ESC[50C` is 50 columns), and whole
 * scrollback of bytes no longer retained. `truncated` is true once bytes were dropped, the text
 * was cut, or scrollback lines were dropped.
 */
export class PtyScreen {
  readonly #buffer: OutputBuffer;
  readonly #deadlineMs: number;
  #cols: number;
  #rows: number;
  #screen: Screen | undefined;
  #scratch: Screen | undefined;
  /** Stream offset up to which the screen has parsed the bytes. */
  #fedTo = 0;
  #sizeVersion = 0;
  #cached: { fedTo: number; sizeVersion: number; text: string; scrollbackFull: boolean } | undefined;

  constructor(buffer: OutputBuffer, size: { cols: number; rows: number }, options: { deadlineMs?: number } = {}) {
    this.#buffer = buffer;
    this.#cols = size.cols;
    this.#rows = size.rows;
    this.#deadlineMs = options.deadlineMs ?? RENDER_DEADLINE_MS;
  }

  snapshot(): RenderedOutput {
    const limit = this.#buffer.limit;
    const screen = this.#catchUp();
    if (this.#cached?.fedTo !== this.#fedTo || this.#cached.sizeVersion !== this.#sizeVersion) {
      this.#cached = {
        fedTo: this.#fedTo,
        sizeVersion: this.#sizeVersion,
        text: screen?.render() ?? "",
        scrollbackFull: screen?.scrollbackFull ?? false,
      };
    }
    const { text, cut } = tailWithinBytes(this.#cached.text, limit);
    return { output: text, truncated: this.#buffer.truncated || cut || this.#cached.scrollbackFull, totalBytes: this.#fedTo };
  }

  /**
   * The rendering of `text` alone (an increment read from a stream offset) on a blank screen of
   * the terminal's size, cut to the limit like a snapshot. `cutAtStart`: the text starts at the
   * truncation cut, so a leading escape-sequence tail is dropped first.
   */
  renderIncrement(text: string, cutAtStart: boolean): string {
    if (text === "") return "";
    this.#scratch ??= this.#newScreen();
    this.#scratch.reset();
    this.#scratch.resize(this.#cols, this.#rows);
    this.#scratch.write(cutAtStart ? stripCutEscapeTail(text) : text);
    return tailWithinBytes(this.#scratch.render(), this.#buffer.limit).text;
  }

  /** Bytes already written were drawn at the old size: they are parsed first, then the screen resizes. */
  resize(cols: number, rows: number): void {
    if (cols === this.#cols && rows === this.#rows) return;
    this.#catchUp();
    this.#cols = cols;
    this.#rows = rows;
    this.#screen?.resize(cols, rows);
    this.#sizeVersion++;
  }

  dispose(): void {
    this.#screen?.dispose();
    this.#scratch?.dispose();
    this.#screen = this.#scratch = undefined;
  }

  /** Parses the bytes that arrived since the last read, until done or the deadline. */
  #catchUp(): Screen | undefined {
    const buffer = this.#buffer;
    const end = buffer.totalBytes - buffer.pendingBytes;
    if (this.#fedTo >= end) return this.#screen;
    const screen = (this.#screen ??= this.#newScreen());
    const restart = this.#fedTo < buffer.droppedBytes;
    if (restart) screen.reset(); // bytes the screen never saw are gone: start again from the retained ones
    const { bytes, fromByte } = buffer.bytesSince(this.#fedTo);
    let offset = restart ? cutEscapeTailBytes(bytes) : 0;
    const deadline = performance.now() + this.#deadlineMs;
    while (offset < bytes.length) {
      const next = characterBoundaryAfter(bytes, Math.min(bytes.length, offset + SLICE_BYTES));
      screen.write(bytes.subarray(offset, next));
      offset = next;
      if (performance.now() >= deadline) break;
    }
    this.#fedTo = fromByte + offset;
    return screen;
  }

  #newScreen(): Screen {
    return new Screen(this.#cols, this.#rows, scrollbackLinesFor(this.#cols, this.#buffer.limit));
  }
}

/** How many leading bytes are the tail of an escape sequence cut by truncation (`stripCutEscapeTail`). */
function cutEscapeTailBytes(bytes: Uint8Array): number {
  // The tails it recognises are short; an OSC string (a title) is looked for in the first 1 KiB.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString("latin1");
  return head.length - stripCutEscapeTail(head).length;
}

/** `index` moved forward past UTF-8 continuation bytes, so a slice ends between characters. */
function characterBoundaryAfter(bytes: Uint8Array, index: number): number {
  let at = index;
  while (at < bytes.length && at - index < 3 && ((bytes[at] ?? 0) & 0xc0) === 0x80) at++;
  return at;
}

/**
 * The end of `text` that fits in `limit` UTF-8 bytes, cut on a character boundary (a surrogate
 * pair stays whole), and whether anything was cut.
 */
export function tailWithinBytes(text: string, limit: number): { text: string; cut: boolean } {
  if (text.length * 3 <= limit || Buffer.byteLength(text) <= limit) return { text, cut: false };
  let bytes = 0;
  let start = text.length;
  while (start > 0) {
    const unit = text.charCodeAt(start - 1);
    const pair = unit >= 0xdc00 && unit <= 0xdfff && start >= 2 && isHighSurrogate(text.charCodeAt(start - 2));
    const size = pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
    if (bytes + size > limit) break;
    bytes += size;
    start -= pair ? 2 : 1;
  }
  return { text: text.slice(start), cut: true };
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
