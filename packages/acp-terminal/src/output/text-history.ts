import { tailWithinBytes } from "./utf8-text.js";

/**
 * The text of lines that scrolled off a screen, newest last, kept as the pieces it was committed
 * in with their UTF-8 sizes: appending costs O(piece), and whole pieces are dropped from the
 * front once the rest still holds `maxBytes`, so it holds less than `maxBytes` plus one piece.
 * `tail(n)` cuts only the oldest piece it keeps, so a read never scans the whole history.
 */
export class TextHistory {
  readonly #maxBytes: number;
  #pieces: string[] = [];
  #pieceBytes: number[] = [];
  #bytes = 0;
  #dropped = false;
  #joined: { keepBytes: number; tail: { text: string; cut: boolean } } | undefined;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** UTF-8 bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether text was dropped from the front to stay within `maxBytes`. */
  get dropped(): boolean {
    return this.#dropped;
  }

  append(text: string): void {
    if (text === "") {
      return;
    }
    const size = Buffer.byteLength(text);
    this.#pieces.push(text);
    this.#pieceBytes.push(size);
    this.#bytes += size;
    while (this.#pieces.length > 1 && this.#bytes - (this.#pieceBytes[0] ?? 0) >= this.#maxBytes) {
      this.#pieces.shift();
      this.#bytes -= this.#pieceBytes.shift() ?? 0;
      this.#dropped = true;
    }
    this.#joined = undefined;
  }

  clear(): void {
    this.#pieces = [];
    this.#pieceBytes = [];
    this.#bytes = 0;
    this.#dropped = false;
    this.#joined = undefined;
  }

  /** The newest text within `keepBytes` UTF-8 bytes, cut on a character boundary; cached until the next append. */
  tail(keepBytes: number): { text: string; cut: boolean } {
    if (this.#joined?.keepBytes === keepBytes) {
      return this.#joined.tail;
    }
    let excess = this.#bytes - keepBytes;
    let first = 0;
    while (excess > 0 && first < this.#pieces.length && (this.#pieceBytes[first] ?? 0) <= excess) {
      excess -= this.#pieceBytes[first++] ?? 0;
    }
    const kept = this.#pieces.slice(first);
    if (excess > 0 && kept.length > 0) {
      kept[0] = tailWithinBytes(kept[0] ?? "", (this.#pieceBytes[first] ?? 0) - excess).text;
    }
    const tail = { text: kept.join(""), cut: this.#bytes > keepBytes };
    this.#joined = { keepBytes, tail };
    return tail;
  }
}
