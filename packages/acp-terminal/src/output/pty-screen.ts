import type { OutputBuffer } from "./output-buffer.js";
import { stripCutEscapeTail } from "./pty-text.js";
import { Screen, scrollbackLinesFor } from "./screen.js";

/** Longest a read spends parsing bytes that arrived since the last read, in ms (see `PtyScreen`). */
export const RENDER_DEADLINE_MS = 50;
/** Bytes parsed between two looks at the clock. */
const SLICE_BYTES = 64 * 1024;
/** Share of the deadline a read plans to spend parsing, leaving room for rendering and misjudged rates. */
const BUDGET_SHARE = 0.8;

/**
 * How fast the emulator parses in this process, in bytes per ms: the mean over the slices parsed
 * recently (every terminal's: it measures the machine, so one estimate serves all). Starts at
 * 10 MB/s, what a loaded shared core reached here; about the last second of parsing counts.
 */
class ParseRate {
  #bytes = 10_000;
  #ms = 1;

  get bytesPerMs(): number {
    return this.#bytes / this.#ms;
  }

  observe(bytes: number, ms: number): void {
    if (bytes < SLICE_BYTES) {
      return; // too little to time
    }
    this.#bytes += bytes;
    this.#ms += ms;
    if (this.#ms > 1000) {
      this.#bytes /= 2;
      this.#ms /= 2;
    }
  }
}
const parseRate = new ParseRate();

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
 * reads costs no parsing. A read parses for at most about `deadlineMs`: with more new bytes than
 * that allows it skips ahead to the newest it can parse (see `#catchUp`), and it stops at the
 * deadline, so it never hangs. When bytes the screen never saw were dropped by the limit, it
 * starts again from the retained bytes (their first line may begin with the tail of a cut escape
 * sequence, which is dropped as for `renderPtyText`).
 *
 * The text is cut from the front to `outputByteLimit` UTF-8 bytes on a character boundary: a
 * screen can render more text than the bytes that drew it (`ESC[50C` is 50 columns), and whole
 * scrollback of bytes no longer retained. `truncated` is true once bytes were dropped, the text
 * was cut, a read skipped bytes, or scrollback lines were dropped.
 */
export class PtyScreen {
  readonly #buffer: OutputBuffer;
  readonly #deadlineMs: number;
  readonly #convertEol: boolean;
  #cols: number;
  #rows: number;
  #screen: Screen | undefined;
  #scratch: Screen | undefined;
  /** Stream offset up to which the screen has parsed the bytes. */
  #fedTo = 0;
  #sizeVersion = 0;
  /** Set when a read skipped bytes to meet its deadline: the text no longer holds all retained bytes. */
  #skipped = false;
  #cached:
    | { fedTo: number; sizeVersion: number; text: string; cut: boolean; linesDropped: boolean }
    | undefined;

  constructor(
    buffer: OutputBuffer,
    size: { cols: number; rows: number },
    options: { deadlineMs?: number; convertEol?: boolean } = {},
  ) {
    this.#convertEol = options.convertEol === true;
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
        ...(screen?.renderWithin(limit) ?? { text: "", cut: false }),
        linesDropped: screen?.linesDropped ?? false,
      };
    }
    const { text, cut, linesDropped } = this.#cached;
    return {
      output: text,
      truncated: this.#buffer.truncated || cut || this.#skipped || linesDropped,
      totalBytes: this.#fedTo,
    };
  }

  /**
   * The rendering of `text` alone (an increment read from a stream offset) on a blank screen of
   * the terminal's size, cut to the limit like a snapshot. `cutAtStart`: the text starts at the
   * truncation cut, so a leading escape-sequence tail is dropped first.
   */
  renderIncrement(text: string, cutAtStart: boolean): string {
    if (text === "") {
      return "";
    }
    this.#scratch ??= this.#newScreen();
    this.#scratch.reset();
    this.#scratch.resize(this.#cols, this.#rows);
    this.#scratch.write(cutAtStart ? stripCutEscapeTail(text) : text);
    return this.#scratch.renderWithin(this.#buffer.limit).text;
  }

  /** Bytes already written were drawn at the old size: they are parsed first, then the screen resizes. */
  resize(cols: number, rows: number): void {
    if (cols === this.#cols && rows === this.#rows) {
      return;
    }
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

  /**
   * Parses the bytes that arrived since the last read. When they are more than the screen can
   * parse before the deadline (at the rate it has measured), it skips ahead: it starts again on a
   * blank screen at the first line start within the newest bytes it can parse, since the end of
   * the output is what a reader needs most. The deadline still bounds the parse if the rate was
   * misjudged; the text then renders bytes up to `totalBytes`.
   */
  #catchUp(): Screen | undefined {
    const buffer = this.#buffer;
    const end = buffer.totalBytes - buffer.pendingBytes;
    if (this.#fedTo >= end) {
      return this.#screen;
    }
    const screen = (this.#screen ??= this.#newScreen());
    const budget = Math.max(
      SLICE_BYTES,
      Math.floor(parseRate.bytesPerMs * this.#deadlineMs * BUDGET_SHARE),
    );
    let restart = this.#fedTo < buffer.droppedBytes; // bytes the screen never saw are gone
    const { bytes, fromByte } = buffer.bytesSince(this.#fedTo);
    let offset = restart ? cutEscapeTailBytes(bytes) : 0;
    if (bytes.length - offset > budget) {
      const lineStart = bytes.indexOf(0x0a, bytes.length - budget) + 1;
      offset = lineStart > 0 ? lineStart : bytes.length - budget;
      offset = characterBoundaryAfter(bytes, offset);
      restart = true;
      this.#skipped = true;
    }
    if (restart) {
      screen.reset();
    }
    const started = performance.now();
    const deadline = started + this.#deadlineMs;
    const parseFrom = offset;
    while (offset < bytes.length) {
      const next = characterBoundaryAfter(bytes, Math.min(bytes.length, offset + SLICE_BYTES));
      screen.write(bytes.subarray(offset, next));
      offset = next;
      if (performance.now() >= deadline) {
        break;
      }
    }
    parseRate.observe(offset - parseFrom, performance.now() - started);
    this.#fedTo = fromByte + offset;
    return screen;
  }

  #newScreen(): Screen {
    return new Screen(this.#cols, this.#rows, scrollbackLinesFor(this.#cols), this.#buffer.limit, {
      convertEol: this.#convertEol,
    });
  }
}

/** How many leading bytes are the tail of an escape sequence cut by truncation (`stripCutEscapeTail`). */
function cutEscapeTailBytes(bytes: Uint8Array): number {
  // The tails it recognises are short; an OSC string (a title) is looked for in the first 1 KiB.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString(
    "latin1",
  );
  return head.length - stripCutEscapeTail(head).length;
}

/** `index` moved forward past UTF-8 continuation bytes, so a slice ends between characters. */
function characterBoundaryAfter(bytes: Uint8Array, index: number): number {
  let at = index;
  while (at < bytes.length && at - index < 3 && ((bytes[at] ?? 0) & 0xc0) === 0x80) {
    at++;
  }
  return at;
}
