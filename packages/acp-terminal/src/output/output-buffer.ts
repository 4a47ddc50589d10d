import { TerminalError } from "../host/errors.js";
import { incompleteTailBytes, leadingContinuationBytes } from "./utf8.js";

/** First capacity of the ring; it doubles as output arrives, up to the limit. */
const INITIAL_CAPACITY = 4096;

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
    if (length === 0) return;
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
    this.#ring.set(chunk.subarray(0, firstPart), end);
    if (firstPart < length) this.#ring.set(chunk.subarray(firstPart), 0);
    const overflow = this.#size + length - capacity;
    if (overflow > 0) {
      this.#start = (this.#start + overflow) % capacity;
      this.#size = capacity;
    } else {
      this.#size += length;
    }
  }

  /** No more bytes will come: an incomplete character at the end now decodes as U+FFFD. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#version++;
  }

  /** A copy of the retained bytes (from the character boundary on). */
  bytes(): Uint8Array {
    return this.#slice(this.#boundarySkip(), this.#size).slice();
  }

  /** The retained bytes as text; cached until the bytes change. */
  text(): string {
    if (this.#cachedText?.version === this.#version) return this.#cachedText.text;
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
    const firstHeld = this.#totalBytes - this.#size; // stream offset of the oldest byte in the ring
    const to = this.#size - this.pendingBytes;
    let from = this.#boundarySkip();
    if (sinceByte - firstHeld > from) {
      const start = sinceByte - firstHeld;
      from = start + leadingContinuationBytes((i) => this.#byteAt(start + i), Math.max(0, to - start));
    }
    if (from >= to) return { text: "", fromByte: firstHeld + Math.min(from, to) };
    return { text: this.#decoder.decode(this.#slice(from, to)), fromByte: firstHeld + from };
  }

  /**
   * The retained bytes from stream offset `sinceByte` (at least the retained start) to
   * `totalBytes - pendingBytes`, and `fromByte`, the offset they start at. A view of the ring
   * when contiguous (valid until the next append), else a copy: for a reader that consumes them
   * at once (the PTY screen).
   */
  bytesSince(sinceByte: number): { bytes: Uint8Array; fromByte: number } {
    const firstHeld = this.#totalBytes - this.#size;
    const to = this.#size - this.pendingBytes;
    const from = Math.min(to, Math.max(this.#boundarySkip(), sinceByte - firstHeld));
    return { bytes: this.#slice(from, to), fromByte: firstHeld + from };
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
    if (to <= from) return new Uint8Array(0);
    const begin = (this.#start + from) % capacity;
    const length = to - from;
    if (begin + length <= capacity) return this.#ring.subarray(begin, begin + length);
    const out = new Uint8Array(length);
    out.set(this.#ring.subarray(begin));
    out.set(this.#ring.subarray(0, length - (capacity - begin)), capacity - begin);
    return out;
  }

  /** Grows the ring (doubling, at most to `limit`) so it holds `needed` bytes, oldest first. */
  #ensureCapacity(needed: number): void {
    if (this.#ring.length >= needed) return;
    const capacity = Math.min(this.limit, Math.max(needed, INITIAL_CAPACITY, this.#ring.length * 2));
    const grown = new Uint8Array(capacity);
    grown.set(this.#slice(0, this.#size));
    this.#ring = grown;
    this.#start = 0;
  }
}
