import { tokensOf, type Keep, type Omission } from "./token-budget.js";

interface Piece {
  text: string;
  bytes: number;
  /** Absolute output offset of the piece's first byte; undefined for acp-process's own notes. */
  offset: number | undefined;
}

/**
 * Keeps the head and the tail of text that arrives in pieces (a poll paging through stored items),
 * within `capBytes` of UTF-8, without holding what falls between them: memory stays bounded
 * however much is pending. Cuts fall on character boundaries; what was left out is counted, with
 * the absolute offset where it starts when that piece is the command's output.
 */
export class HeadTailCollector {
  private readonly headCap: number;
  private readonly tailCap: number;
  private head = "";
  private headBytes = 0;
  private readonly tail: Piece[] = [];
  private tailBytes = 0;
  private totalBytes = 0;
  private omittedOffset: number | undefined;
  private omittedKnown = false;

  constructor(capBytes: number, keep: Keep) {
    this.headCap = keep === "tail" ? 0 : keep === "head" ? capBytes : Math.floor(capBytes / 2);
    this.tailCap = capBytes - this.headCap;
  }

  add(text: string, offset: number | undefined): void {
    const bytes = Buffer.byteLength(text, "utf8");
    this.totalBytes += bytes;
    let rest: Piece = { text, bytes, offset };
    if (this.headBytes < this.headCap) {
      const taken = firstBytes(text, this.headCap - this.headBytes);
      this.head += taken.text;
      this.headBytes += taken.bytes;
      if (taken.bytes === bytes) {
        return;
      }
      rest = {
        text: text.slice(taken.text.length),
        bytes: bytes - taken.bytes,
        offset: offset === undefined ? undefined : offset + taken.bytes,
      };
    }
    this.tail.push(rest);
    this.tailBytes += rest.bytes;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.bytes >= this.tailCap) {
      this.drop(this.tail.shift()!);
    }
  }

  /** The kept text around `marker(omission)` (when something was left out), and the omission. */
  result(marker: (omitted: Omission) => string): {
    text: string;
    omitted?: Omission;
    totalBytes: number;
  } {
    let tailText = this.tail.map((piece) => piece.text).join("");
    let tailBytes = this.tailBytes;
    if (tailBytes > this.tailCap) {
      const cut = lastBytes(tailText, this.tailCap);
      if (this.tail[0]) {
        this.noteOmitted(this.tail[0].offset);
      }
      tailText = cut.text;
      tailBytes = cut.bytes;
    }
    const omittedBytes = this.totalBytes - this.headBytes - tailBytes;
    if (omittedBytes <= 0) {
      return { text: this.head + tailText, totalBytes: this.totalBytes };
    }
    const omitted: Omission = {
      bytes: omittedBytes,
      tokens: tokensOf(omittedBytes),
      ...(this.omittedOffset !== undefined ? { offset: this.omittedOffset } : {}),
    };
    return { text: this.head + marker(omitted) + tailText, omitted, totalBytes: this.totalBytes };
  }

  private drop(piece: Piece): void {
    this.tailBytes -= piece.bytes;
    this.noteOmitted(piece.offset);
  }

  /** The first piece left out says where the omission starts (when it is output). */
  private noteOmitted(offset: number | undefined): void {
    if (!this.omittedKnown) {
      this.omittedKnown = true;
      this.omittedOffset = offset;
    }
  }
}

/** The first `maxBytes` of `text` in UTF-8, cut on a character boundary. */
function firstBytes(text: string, maxBytes: number): { text: string; bytes: number } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) {
    return { text, bytes: bytes.length };
  }
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) {
    end--;
  }
  return { text: bytes.subarray(0, end).toString("utf8"), bytes: end };
}

/** The last `maxBytes` of `text` in UTF-8, cut on a character boundary. */
function lastBytes(text: string, maxBytes: number): { text: string; bytes: number } {
  const bytes = Buffer.from(text, "utf8");
  let from = Math.max(0, bytes.length - maxBytes);
  while (from < bytes.length && (bytes[from]! & 0xc0) === 0x80) {
    from++;
  }
  return { text: bytes.subarray(from).toString("utf8"), bytes: bytes.length - from };
}
