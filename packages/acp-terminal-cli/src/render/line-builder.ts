import { MAX_LINE_BYTES } from "./display-line.js";

const CR = 0x0d;

/**
 * The line being read, as a terminal will show it: `\r` overwrites from the start, so what shows
 * is the segment after the last `\r`, except that a `\r` right before the newline ends the line
 * (CRLF) and overwrites nothing. Only the first MAX_LINE_BYTES of each segment are kept (enough for
 * every character a display line holds), with how many bytes the segment and the line have in all:
 * a line of 100 MB costs two small buffers. The buffers are handed over whole (`takeShown`), never
 * copied line by line.
 */
export class LineBuilder {
  /** The segment after the last `\r`. */
  #segment: Uint8Array = new Uint8Array(MAX_LINE_BYTES);
  #segmentKept = 0;
  #segmentBytes = 0;
  /** The segment before the last `\r` (shown when that `\r` turns out to be the line's end). */
  #before: Uint8Array = new Uint8Array(MAX_LINE_BYTES);
  #beforeKept = 0;
  #beforeBytes = 0;
  #endsWithCr = false;
  /** Stream offset of the line's first byte. */
  start = 0;
  /** Bytes of the line so far. */
  bytes = 0;

  /** Lets its buffers go, keeping what it counted (nothing more will be added or shown). */
  release(): void {
    this.#segment = new Uint8Array(0);
    this.#before = new Uint8Array(0);
    this.#segmentKept = 0;
    this.#beforeKept = 0;
  }

  /** Starts a new line at stream offset `start`. */
  reset(start: number): void {
    this.#segmentKept = 0;
    this.#segmentBytes = 0;
    this.#beforeKept = 0;
    this.#beforeBytes = 0;
    this.#endsWithCr = false;
    this.start = start;
    this.bytes = 0;
  }

  /**
   * Adds `chunk[from, to)`, which holds no newline. Only its last two `\r` matter (what came
   * before them is overwritten), so it is searched from its end, natively, whatever it holds.
   */
  add(chunk: Uint8Array, from: number, to: number): void {
    if (to <= from) {
      return;
    }
    const view = Buffer.from(chunk.buffer, chunk.byteOffset + from, to - from);
    const last = view.lastIndexOf(CR);
    if (last === -1) {
      this.#append(view, 0, view.byteLength);
    } else {
      const before = last === 0 ? -1 : view.lastIndexOf(CR, last - 1);
      if (before !== -1) {
        this.#segmentKept = 0;
        this.#segmentBytes = 0;
      }
      this.#append(view, before + 1, last);
      // What was read of the line is overwritten, unless this `\r` turns out to be its last byte.
      const segment = this.#segment;
      this.#segment = this.#before;
      this.#before = segment;
      this.#beforeKept = this.#segmentKept;
      this.#beforeBytes = this.#segmentBytes;
      this.#segmentKept = 0;
      this.#segmentBytes = 0;
      this.#append(view, last + 1, view.byteLength);
    }
    this.bytes += to - from;
    this.#endsWithCr = view[view.byteLength - 1] === CR;
  }

  /** The shown segment: its kept bytes, and whether bytes of it were left out. */
  shown(): { bytes: Uint8Array; cut: boolean } {
    if (this.#segmentBytes === 0 && this.#endsWithCr) {
      return {
        bytes: this.#before.subarray(0, this.#beforeKept),
        cut: this.#beforeBytes > this.#beforeKept,
      };
    }
    return {
      bytes: this.#segment.subarray(0, this.#segmentKept),
      cut: this.#segmentBytes > this.#segmentKept,
    };
  }

  /**
   * Hands over the buffer of the shown segment (`spare`, a MAX_LINE_BYTES buffer, takes its place)
   * with how many of its bytes are kept and whether some were left out.
   */
  takeShown(spare: Uint8Array): { buffer: Uint8Array; kept: number; cut: boolean } {
    if (this.#segmentBytes === 0 && this.#endsWithCr) {
      const taken = {
        buffer: this.#before,
        kept: this.#beforeKept,
        cut: this.#beforeBytes > this.#beforeKept,
      };
      this.#before = spare;
      return taken;
    }
    const taken = {
      buffer: this.#segment,
      kept: this.#segmentKept,
      cut: this.#segmentBytes > this.#segmentKept,
    };
    this.#segment = spare;
    return taken;
  }

  #append(chunk: Uint8Array, from: number, to: number): void {
    const room = MAX_LINE_BYTES - this.#segmentKept;
    const take = Math.min(room, to - from);
    if (take > 0) {
      this.#segment.set(chunk.subarray(from, from + take), this.#segmentKept);
      this.#segmentKept += take;
    }
    this.#segmentBytes += to - from;
  }
}
