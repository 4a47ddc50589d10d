import type { OutputReader } from "acp-terminal";
import { displayLine, MAX_LINE_BYTES } from "./display-line.js";

/** Bytes one look at the buffer covers, at most (a view of it: nothing is copied). */
export const STREAM_READ_BYTES = 256 * 1024;
/** Of a long line, the newest bytes searched for a `\r` (a progress bar overwriting itself). */
const LINE_TAIL_BYTES = MAX_LINE_BYTES * 4;
const NEWLINE = 0x0a;
/** Decodes whole lines (no state between calls): one for every stream, not one per terminal. */
const decoder = new TextDecoder();

/**
 * A terminal's complete lines in order, read from the host's buffer by a cursor when asked (at a
 * bounded rate), for printing the first lines of a piped run. Each byte is searched for a newline
 * once, in views of the buffer (no copies); only the lines returned are decoded, each from at most
 * its newest LINE_TAIL_BYTES (or its first MAX_LINE_BYTES when those hold no `\r`). Bytes the buffer
 * dropped before they were searched are skipped (`skippedBytes` says how many).
 */
export class LineStream {
  /** Stream offset where the unfinished line starts. */
  #lineStart = 0;
  /** Stream offset up to which bytes were searched for a newline. */
  #searched = 0;
  #skipped = 0;

  constructor(private readonly source: () => OutputReader) {}

  /** Bytes that went by unsearched, because the buffer had dropped them. */
  get skippedBytes(): number {
    return this.#skipped;
  }

  /** Up to `max` complete lines after those already taken, as displayed. */
  take(max: number): string[] {
    const lines: string[] = [];
    while (lines.length < max) {
      const { bytes, fromByte } = this.source().viewSince(this.#searched, STREAM_READ_BYTES);
      if (fromByte > this.#searched) {
        this.#skipped += fromByte - this.#searched;
        this.#lineStart = Math.max(this.#lineStart, fromByte);
      }
      if (bytes.byteLength === 0) {
        break;
      }
      let newline = bytes.indexOf(NEWLINE);
      while (newline !== -1 && lines.length < max) {
        lines.push(this.#line(this.#lineStart, fromByte + newline));
        this.#lineStart = fromByte + newline + 1;
        newline = bytes.indexOf(NEWLINE, newline + 1);
      }
      this.#searched = lines.length >= max ? this.#lineStart : fromByte + bytes.byteLength;
    }
    return lines;
  }

  /** The line `[start, end)` as a terminal shows it (the caller has checked it is still held). */
  #line(start: number, end: number): string {
    const source = this.source();
    const tailFrom = Math.max(start, end - LINE_TAIL_BYTES);
    const tail = decoder.decode(source.bytesSince(tailFrom, end - tailFrom).bytes);
    const overwritten = (tail.endsWith("\r") ? tail.slice(0, -1) : tail).includes("\r");
    if (overwritten || tailFrom === start) {
      return displayLine(tail);
    }
    // A long line with no `\r` near its end: shown from its beginning, as the line reads.
    return displayLine(decoder.decode(source.bytesSince(start, MAX_LINE_BYTES).bytes));
  }
}
