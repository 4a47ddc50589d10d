import { TerminalError } from "../core/errors.js";
import { incompleteTailBytes, leadingContinuationBytes } from "./utf8.js";

/** First capacity of the ring; it grows fourfold as output arrives, up to the limit. */
const INITIAL_CAPACITY = 4096;
/**
 * How much the ring grows at a time. Each ring it outgrows is garbage until V8 collects it: a
 * flood that fills a 1 MiB ring leaves 340 KiB behind growing fourfold, 1 MiB doubling.
 */
const GROWTH = 4;

/**
 * The newest `limit` bytes a command wrote, in a ring that grows by doubling up to `limit`:
 * appending costs O(chunk) amortized and memory never exceeds `limit` bytes (plus the cached text).
 *
 * Text is decoded only when read, with one `TextDecoder` (invalid bytes become U+FFFD), and cached
 * until new bytes arrive. Once bytes have been dropped, the text starts after any continuation
 * bytes, so the cut falls on a character boundary even if that leaves less than `limit` bytes.
 * Until `end()`, an incomplete character at the end is held back rather than shown as U+FFFD.
 */
export class OutputBuffer {
  readonly limit: number;
  #ring = new Uint8Array(0);
  /** Index in `#ring` of the oldest byte held. */
  #start = 0;
  /** Bytes held in `#ring` (at most `limit`). */
  #size = 0;
  #totalBytes = 0;
  #ended = false;
  #version = 0;
  #cachedText: { version: number; text: string } | undefined;
  readonly #decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw TerminalError.invalidParams("outputByteLimit", "a non-negative integer (bytes)", limit);
    }
    this.limit = limit;
  }

  /** Bytes the command has written in all. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Bytes dropped from the beginning: `totalBytes` minus the bytes `bytes()` returns. */
  get droppedBytes(): number {
    return this.#totalBytes - this.retainedBytes;
  }

  /** Bytes kept, starting on a character boundary. */
  get retainedBytes(): number {
    return this.#size - this.#boundarySkip();
  }

  /**
   * Bytes of an incomplete character at the end that `text()` holds back while the command runs
   * (its rest may still come); 0 once ended. `text()` is bytes `[droppedBytes, totalBytes - pendingBytes)`.
   */
  get pendingBytes(): number {
    return this.#ended ? 0 : incompleteTailBytes((i) => this.#byteAt(i), this.#size);
  }

  /** True from the first dropped byte on. */
  get truncated(): boolean {
    return this.#totalBytes > this.#size;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Changes whenever the retained bytes or `ended` change; lets views cache what they derive. */
  get version(): number {
    return this.#version;
  }

  append(chunk: Uint8Array): void {
    const length = chunk.byteLength;
    if (length === 0) {
      return;
    }
    this.#totalBytes += length;
    this.#version++;
    if (length >= this.limit) {
      this.#ensureCapacity(this.limit);
      this.#ring.set(chunk.subarray(length - this.limit));
      this.#start = 0;
      this.#size = this.limit;
      return;
    }
    this.#ensureCapacity(Math.min(this.limit, this.#size + length));
    const capacity = this.#ring.length;
    const end = (this.#start + this.#size) % capacity;
    const firstPart = Math.min(length, capacity - end);
    if (firstPart === length) {
      this.#ring.set(chunk, end); // no view to allocate: a PTY flood appends ~50,000 chunks per 200 MB
    } else {
      this.#ring.set(chunk.subarray(0, firstPart), end);
      this.#ring.set(chunk.subarray(firstPart), 0);
    }
    const overflow = this.#size + length - capacity;
    if (overflow > 0) {
      this.#start = (this.#start + overflow) % capacity;
      this.#size = capacity;
    } else {
      this.#size += length;
    }
  }

  /**
   * Forgets every byte, as a new buffer of the same limit would, but keeps the ring it grew (a
   * reader that buffers only while its own reader lags reuses one instead of growing a new one).
   */
  reset(): void {
    this.#start = 0;
    this.#size = 0;
    this.#totalBytes = 0;
    this.#ended = false;
    this.#version++;
    this.#cachedText = undefined;
  }

  /** No more bytes will come: an incomplete character at the end now decodes as U+FFFD. */
  end(): void {
    if (this.#ended) {
      return;
    }
    this.#ended = true;
    this.#version++;
  }

  /** A copy of the retained bytes (from the character boundary on). */
  bytes(): Uint8Array {
    return this.#slice(this.#boundarySkip(), this.#size).slice();
  }

  /**
   * The retained bytes as text; cached until the bytes change. A ring that wraps is turned in
   * place first (its oldest byte at index 0), so that a megabyte read makes no megabyte copy.
   */
  text(): string {
    if (this.#cachedText?.version === this.#version) {
      return this.#cachedText.text;
    }
    this.#unwrap();
    const from = this.#boundarySkip();
    const to = this.#size - this.pendingBytes;
    const text = to > from ? this.#decoder.decode(this.#slice(from, to)) : "";
    this.#cachedText = { version: this.#version, text };
    return text;
  }

  /**
   * The retained text from stream offset `sinceByte` on: from `max(sinceByte, droppedBytes)`,
   * moved forward past continuation bytes to a character boundary, to `totalBytes - pendingBytes`.
   * `fromByte` is the offset the text starts at. An offset past the end gives "". Not cached:
   * increments are small and each caller asks for its own.
   */
  textSince(sinceByte: number): { text: string; fromByte: number } {
    const { from, to, firstHeld } = this.#rangeSince(sinceByte);
    if (from >= to) {
      return { text: "", fromByte: firstHeld + Math.min(from, to) };
    }
    return { text: this.#decoder.decode(this.#slice(from, to)), fromByte: firstHeld + from };
  }

  /**
   * The retained bytes from stream offset `sinceByte` on, at most `maxBytes` of them: the same
   * range as `textSince` (starting on a character boundary, without an incomplete last character
   * while the command runs), as bytes, cut before a character `maxBytes` would split. A view of
   * the ring where they are contiguous, else a copy; a view is valid until the next append (or
   * `text()`, which may turn the ring).
   */
  bytesSince(
    sinceByte: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): { bytes: Uint8Array; fromByte: number } {
    return this.#read(sinceByte, maxBytes, false);
  }

  /**
   * A copy of the bytes `pendingBytes` counts: the start of a character whose rest has not come
   * yet, which `bytesSince` leaves out. A reader that takes the raw bytes as they arrive (the
   * host's `output` events) starts from `bytesSince` and these, or it gets the rest of that
   * character without its start.
   */
  pendingTail(): Uint8Array {
    return this.#slice(this.#size - this.pendingBytes, this.#size).slice();
  }

  /**
   * Like `bytesSince`, but never copies: it also stops where the ring wraps around, so it may return
   * fewer bytes than there are (never none while there are some). For readers that loop over the
   * output (a cursor): valid until the next append (or `text()`), so decode or count it at once.
   */
  viewSince(
    sinceByte: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): { bytes: Uint8Array; fromByte: number } {
    return this.#read(sinceByte, maxBytes, true);
  }

  #read(
    sinceByte: number,
    maxBytes: number,
    contiguous: boolean,
  ): { bytes: Uint8Array; fromByte: number } {
    const { from, to, firstHeld } = this.#rangeSince(sinceByte);
    if (from >= to) {
      return { bytes: new Uint8Array(0), fromByte: firstHeld + Math.min(from, to) };
    }
    const capacity = this.#ring.length;
    const wrapsAt = capacity - ((this.#start + from) % capacity); // bytes before the end of the ring
    let end = Math.min(to, from + maxBytes, contiguous ? from + wrapsAt : Number.POSITIVE_INFINITY);
    // Cut early: end before a character the cut would split, so the next read starts on it.
    if (end < to) {
      end -= incompleteTailBytes((i) => this.#byteAt(from + i), end - from);
    }
    // A character across the ring's end, right at `from`: copy just its bytes rather than return none.
    if (end <= from) {
      end = from + 1 + leadingContinuationBytes((i) => this.#byteAt(from + 1 + i), to - from - 1);
    }
    return { bytes: this.#slice(from, end), fromByte: firstHeld + from };
  }

  /** Offsets (from the oldest byte held) of what `textSince(sinceByte)` covers. */
  #rangeSince(sinceByte: number): { from: number; to: number; firstHeld: number } {
    const firstHeld = this.#totalBytes - this.#size; // stream offset of the oldest byte in the ring
    const to = this.#size - this.pendingBytes;
    let from = this.#boundarySkip();
    if (sinceByte - firstHeld > from) {
      const start = sinceByte - firstHeld;
      from =
        start + leadingContinuationBytes((i) => this.#byteAt(start + i), Math.max(0, to - start));
    }
    return { from, to, firstHeld };
  }

  #boundarySkip(): number {
    return this.truncated ? leadingContinuationBytes((i) => this.#byteAt(i), this.#size) : 0;
  }

  #byteAt(index: number): number {
    return this.#ring[(this.#start + index) % this.#ring.length] ?? 0;
  }

  /** Retained bytes `from..to` (offsets from the oldest byte): a view when contiguous, else a copy. */
  #slice(from: number, to: number): Uint8Array {
    const capacity = this.#ring.length;
    if (to <= from) {
      return new Uint8Array(0);
    }
    const begin = (this.#start + from) % capacity;
    const length = to - from;
    if (begin + length <= capacity) {
      return this.#ring.subarray(begin, begin + length);
    }
    const out = new Uint8Array(length);
    out.set(this.#ring.subarray(begin));
    out.set(this.#ring.subarray(0, length - (capacity - begin)), capacity - begin);
    return out;
  }

  /** Grows the ring (fourfold, at most to `limit`) so it holds `needed` bytes, oldest first. */
  #ensureCapacity(needed: number): void {
    if (this.#ring.length >= needed) {
      return;
    }
    const capacity = Math.min(
      this.limit,
      Math.max(needed, INITIAL_CAPACITY, this.#ring.length * GROWTH),
    );
    this.#unwrap();
    const grown = new Uint8Array(capacity);
    grown.set(this.#ring.subarray(0, this.#size));
    this.#ring = grown;
  }

  /**
   * Moves the oldest byte to index 0 in place (a rotation by three reversals, each native), so
   * the retained bytes are one view. Views read before it are no longer valid.
   */
  #unwrap(): void {
    const start = this.#start;
    if (start === 0) {
      return;
    }
    const ring = this.#ring;
    if (start + this.#size <= ring.length) {
      ring.copyWithin(0, start, start + this.#size);
    } else {
      ring.subarray(0, start).reverse();
      ring.subarray(start).reverse();
      ring.reverse();
    }
    this.#start = 0;
  }
}

/** What a view may read of a terminal's buffer (a UI drawing its tail): never writes. */
export type OutputReader = Pick<
  OutputBuffer,
  | "limit"
  | "totalBytes"
  | "droppedBytes"
  | "version"
  | "ended"
  | "bytesSince"
  | "viewSince"
  | "pendingTail"
>;
