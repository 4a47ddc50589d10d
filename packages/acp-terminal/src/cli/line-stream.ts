import type { OutputReader } from "../output/output-buffer.js";
import { displayLine, MAX_LINE_BYTES } from "./display-line.js";

/** Bytes one read looks at, at most: a flood costs this much per read, not its size. */
export const STREAM_READ_BYTES = 256 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;

/** The bytes of line `[start, end)` a terminal would show: after its last `\r`, at most MAX_LINE_BYTES. */
function visiblePart(bytes: Uint8Array, start: number, end: number): Uint8Array {
  let from = start;
  // A `\r` just before the newline ends the line (CRLF); one before it overwrites what came first.
  for (let i = end - 2; i >= start; i--) {
    if (bytes[i] === CR) {
      from = i + 1;
      break;
    }
  }
  return bytes.subarray(from, Math.min(end, from + MAX_LINE_BYTES));
}

/**
 * A terminal's complete lines in order, read from the host's buffer by a cursor when asked (at a
 * bounded rate), for printing the first lines of a piped run. Bytes the buffer dropped before they
 * were read are skipped (`skippedBytes` says how many); a line longer than a read is shown from its
 * newest part, as a terminal's tail shows it.
 */
export class LineStream {
  #cursor = 0;
  #skipped = 0;
  readonly #decoder = new TextDecoder();

  constructor(private readonly source: () => OutputReader) {}

  /** Bytes that went by unread, because the buffer had dropped them. */
  get skippedBytes(): number {
    return this.#skipped;
  }

  /** Up to `max` complete lines after those already taken, as displayed. */
  take(max: number): string[] {
    const lines: string[] = [];
    while (lines.length < max) {
      const { bytes, fromByte } = this.source().bytesSince(this.#cursor, STREAM_READ_BYTES);
      if (fromByte > this.#cursor) this.#skipped += fromByte - this.#cursor;
      this.#cursor = fromByte;
      let start = 0;
      let newline = bytes.indexOf(NEWLINE);
      while (newline !== -1 && lines.length < max) {
        lines.push(displayLine(this.#decoder.decode(visiblePart(bytes, start, newline))));
        start = newline + 1;
        newline = bytes.indexOf(NEWLINE, start);
      }
      this.#cursor += start;
      if (lines.length >= max || bytes.byteLength < STREAM_READ_BYTES) return lines;
      // A whole read without a newline: keep only the newest part of that line for when it ends.
      if (start === 0) this.#cursor += bytes.byteLength - MAX_LINE_BYTES;
    }
    return lines;
  }
}
