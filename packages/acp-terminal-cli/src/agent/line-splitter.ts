/**
 * Bytes of the buffer that lines spanning chunks are put together in, kept between lines (one
 * grown past it is let go after its line): a new buffer a line is native memory that V8 frees
 * only when its external-memory pressure triggers a GC, tens of MB over a flood.
 */
const REUSED_LINE_BYTES = 1024 * 1024;
const NEWLINE = 10;

/**
 * Newline-delimited lines from chunks of a byte stream (a pipe read into a reused buffer): each
 * complete line, without its newline, goes to `line` as a view valid only during the call (of the
 * chunk itself, or of a buffer reused from line to line where the line spans chunks). A line that
 * grows past `maxBytes` is reported once to `tooLong` as soon as it does, and its bytes are
 * dropped up to its newline; the lines after it are read as usual.
 */
export class LineSplitter {
  /** The line being read, put together from the chunks it spans (copied: chunks are reused). */
  #partial = Buffer.alloc(0);
  #partialBytes = 0;
  /** Dropping the rest of a line that was too long. */
  #skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly line: (bytes: Buffer) => void,
    private readonly tooLong: () => void,
  ) {}

  /** Reads the lines a chunk completes (and keeps the start of the next). */
  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      const tail = bytes.subarray(start, end);
      start = end + 1;
      if (this.#skipping) {
        this.#skipping = false;
      } else if (this.#partialBytes === 0 && tail.byteLength <= this.maxBytes) {
        this.line(tail);
      } else if (this.#partialBytes === 0) {
        this.tooLong();
      } else if (this.#keep(tail)) {
        this.#flush();
      }
    }
    if (start < bytes.byteLength && !this.#skipping) {
      this.#keep(bytes.subarray(start));
    }
  }

  /** The stream ended: a last line without a newline is read too. */
  end(): void {
    if (this.#partialBytes > 0 && !this.#skipping) {
      this.#flush();
    }
  }

  #flush(): void {
    const line = this.#partial.subarray(0, this.#partialBytes);
    this.#taken();
    this.line(line);
  }

  /** Adds bytes to the line being put together; false (and dropped) when it grows too long. */
  #keep(bytes: Uint8Array): boolean {
    const length = this.#partialBytes + bytes.byteLength;
    if (length > this.maxBytes) {
      this.#taken();
      this.#skipping = true;
      this.tooLong();
      return false;
    }
    if (this.#partial.byteLength < length) {
      const grown = Buffer.allocUnsafe(Math.max(length, this.#partial.byteLength * 2, 4096));
      this.#partial.copy(grown, 0, 0, this.#partialBytes);
      this.#partial = grown;
    }
    this.#partial.set(bytes, this.#partialBytes);
    this.#partialBytes = length;
    return true;
  }

  /** The line is read: let a buffer grown past REUSED_LINE_BYTES go (after its line was handed on). */
  #taken(): void {
    this.#partialBytes = 0;
    if (this.#partial.byteLength > REUSED_LINE_BYTES) {
      this.#partial = Buffer.alloc(0);
    }
  }
}
