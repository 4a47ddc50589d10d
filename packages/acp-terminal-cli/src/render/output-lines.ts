import { displayLine, MAX_LINE_BYTES } from "./display-line.js";
import { LineBuilder } from "./line-builder.js";
import type { LineCount, TailView } from "./tail-view.js";

/** Lines a tail keeps by default: what a reader glances at, not a log. */
export const DEFAULT_TAIL_LINES = 10;

const NEWLINE = 0x0a;
const NO_BYTES = new Uint8Array(0);
/** Decodes whole lines (no state between calls): one for every view. */
const decoder = new TextDecoder();

/** Lines and bytes of a terminal's output that a display leaves out. */
export interface LeftOut extends LineCount {
  bytes: number;
}

/** One complete line of the tail, held as the bytes it shows. */
interface TailSlot {
  buffer: Uint8Array;
  kept: number;
  cut: boolean;
  /** Stream offset of its first byte, and its bytes with the newline. */
  start: number;
  bytes: number;
}

/** Where a chunk's newlines are, found once per chunk (shared: appends are synchronous). */
let newlines = new Int32Array(0);

function newlinesOf(chunk: Uint8Array): number {
  if (newlines.length < chunk.byteLength) {
    newlines = new Int32Array(Math.max(chunk.byteLength, 2 * newlines.length));
  }
  // The host's chunks are Buffers already (its read buffer's views): no view to make.
  const view = Buffer.isBuffer(chunk)
    ? chunk
    : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let count = 0;
  for (let at = view.indexOf(NEWLINE); at !== -1; at = view.indexOf(NEWLINE, at + 1)) {
    newlines[count++] = at;
  }
  return count;
}

/**
 * A display's own view of one terminal's output, independent of the buffer its `outputByteLimit`
 * sizes: the first `headLines` complete lines, the newest `tailLines` and the line under way, and
 * exactly how many lines and bytes lie between, however fast output comes. Every chunk is handed
 * to `append` as it arrives; each byte is searched once for a newline (natively), the lines kept
 * from their end for their last `\r`s, and only those lines are copied, at most MAX_LINE_BYTES each: memory stays a few
 * kilobytes per terminal whatever it writes. Lines are decoded when shown, each one whole (never a
 * piece of a line whose start went by).
 */
export class OutputLines implements TailView {
  readonly #head: Array<{ text: string; bytes: number }> = [];
  /** The newest complete lines, oldest first once `#tailStart` wraps. */
  readonly #tail: TailSlot[] = [];
  #tailStart = 0;
  readonly #line = new LineBuilder();
  #complete = 0;
  #totalBytes = 0;
  #version = 0;
  #cachedTail: { version: number; lines: string[] } | undefined;
  /** Once frozen: the tail and the line under way as shown, the buffers let go. */
  #frozen: { tail: string[]; partial: string | undefined } | undefined;

  constructor(
    readonly headLines: number,
    readonly tailLines = DEFAULT_TAIL_LINES,
  ) {}

  /** Changes with every append. */
  get version(): number {
    return this.#version;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Complete lines so far (newlines). */
  get completeLines(): number {
    return this.#complete;
  }

  /** Whether output after the last newline waits (a line under way, or the last one unended). */
  get hasPartialLine(): boolean {
    return this.#line.bytes > 0;
  }

  append(chunk: Uint8Array): void {
    const length = chunk.byteLength;
    if (length === 0 || this.#frozen !== undefined) {
      return;
    }
    const newlineCount = newlinesOf(chunk);
    const offset = this.#totalBytes;
    const before = this.#complete;
    const after = before + newlineCount;
    let from = 0;
    for (let i = 0; i < newlineCount; i++) {
      const end = newlines[i]!;
      const index = before + i;
      const kept = index < this.headLines || index >= after - this.tailLines;
      if (kept) {
        this.#line.add(chunk, from, end);
        this.#lineEnded(index);
      }
      this.#line.reset(offset + end + 1);
      from = end + 1;
    }
    this.#line.add(chunk, from, length);
    this.#complete = after;
    this.#totalBytes += length;
    this.#version++;
  }

  /** The first complete lines as shown, at most `headLines` (once frozen, at most `tailLines`). */
  head(count = this.headLines): string[] {
    const kept = this.#frozen === undefined ? count : Math.min(count, this.tailLines);
    return this.#head.slice(0, kept).map((line) => line.text);
  }

  /**
   * The newest lines as shown, at most `count` (≤ `tailLines`), the line under way last; none of
   * the first `after` lines (those shown already as the head).
   */
  tail(count = this.tailLines, after = 0): string[] {
    const lines = this.#tailLines();
    const partial = this.partialLine;
    const all = partial === undefined ? lines : [...lines, partial];
    const firstIndex = this.#complete - lines.length;
    return all.slice(Math.max(0, after - firstIndex)).slice(-count);
  }

  /** The line under way (or the last one, unended), as shown; undefined when there is none. */
  get partialLine(): string | undefined {
    if (this.#frozen !== undefined) {
      return this.#frozen.partial;
    }
    if (this.#line.bytes === 0) {
      return undefined;
    }
    const { bytes, cut } = this.#line.shown();
    return shownLine(bytes, cut, this.#line.bytes);
  }

  /** Lines (and their bytes) before those `tail()` shows. */
  hiddenLines(): LineCount {
    return this.leftOut(0, this.tailLines);
  }

  /**
   * No more output comes, and no more is drawn live (the terminal was released and its last
   * lines shown): the lines are kept as text, the first only as many as a tail (their sizes all),
   * and the buffers let go. What a terminal's view holds for the rest of the run is ~10 KB at most.
   */
  freeze(): void {
    if (this.#frozen !== undefined) {
      return;
    }
    this.#frozen = { tail: this.#tailLines(), partial: this.partialLine };
    for (const slot of this.#tail) {
      slot.buffer = NO_BYTES;
    }
    for (const line of this.#head.slice(this.tailLines)) {
      line.text = "";
    }
    this.#line.release();
  }

  /**
   * What a display that shows the first `head` lines and the last `tail` lines (the line under
   * way counted among them) leaves out between them.
   */
  leftOut(head: number, tail: number): LeftOut {
    const partial = this.hasPartialLine ? 1 : 0;
    const total = this.#complete + partial;
    const shownHead = Math.min(head, this.#head.length);
    const firstTail = Math.max(shownHead, total - Math.min(tail, this.#tail.length + partial));
    if (firstTail <= shownHead) {
      return { lines: 0, bytes: 0 };
    }
    return {
      lines: firstTail - shownHead,
      bytes: this.#startOf(firstTail) - this.#startOf(shownHead),
    };
  }

  /** Stream offset where line `index` starts (a line the view holds, or the one after the head). */
  #startOf(index: number): number {
    if (index <= this.#head.length) {
      return this.#head.slice(0, index).reduce((sum, line) => sum + line.bytes, 0);
    }
    if (index === this.#complete) {
      return this.#line.start;
    }
    const inTail = index - (this.#complete - this.#tail.length);
    return this.#tail[(this.#tailStart + inTail) % this.#tail.length]!.start;
  }

  /** Line `index` ended (its newline is not in the builder): kept in the head, the tail or both. */
  #lineEnded(index: number): void {
    const lineBytes = this.#line.bytes + 1;
    if (index < this.headLines) {
      const { bytes: shown, cut } = this.#line.shown();
      this.#head.push({ text: shownLine(shown, cut, lineBytes), bytes: lineBytes });
    }
    if (this.tailLines === 0) {
      return;
    }
    const spare =
      this.#tail.length < this.tailLines
        ? new Uint8Array(MAX_LINE_BYTES)
        : this.#tail[this.#tailStart]!.buffer;
    const { buffer, kept, cut } = this.#line.takeShown(spare);
    const slot: TailSlot = { buffer, kept, cut, start: this.#line.start, bytes: lineBytes };
    if (this.#tail.length < this.tailLines) {
      this.#tail.push(slot);
    } else {
      this.#tail[this.#tailStart] = slot;
      this.#tailStart = (this.#tailStart + 1) % this.tailLines;
    }
  }

  #tailLines(): string[] {
    if (this.#frozen !== undefined) {
      return this.#frozen.tail;
    }
    if (this.#cachedTail?.version === this.#version) {
      return this.#cachedTail.lines;
    }
    const ordered = [...this.#tail.slice(this.#tailStart), ...this.#tail.slice(0, this.#tailStart)];
    const lines = ordered.map((slot) =>
      shownLine(slot.buffer.subarray(0, slot.kept), slot.cut, slot.bytes),
    );
    this.#cachedTail = { version: this.#version, lines };
    return lines;
  }
}

/**
 * A line's shown bytes as a display line: decoded whole (a character cut by MAX_LINE_BYTES is
 * dropped, not shown as U+FFFD), escapes stripped, capped; a line shown in part says its size.
 */
function shownLine(bytes: Uint8Array, cut: boolean, lineBytes: number): string {
  let end = bytes.byteLength;
  if (cut) {
    // Back to the start of the character the cut fell in.
    let at = end;
    while (at > 0 && (bytes[at - 1]! & 0xc0) === 0x80) {
      at--;
    }
    if (at > 0 && bytes[at - 1]! >= 0xc0) {
      end = at - 1;
    }
  }
  const text = displayLine(decoder.decode(bytes.subarray(0, end)));
  const shortened = cut || text.endsWith("…");
  return shortened
    ? `${cut && !text.endsWith("…") ? `${text}…` : text} (${lineBytes} bytes)`
    : text;
}
