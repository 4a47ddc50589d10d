import { headEnd, partialLines, tailStart } from "./line-cut.js";
import { aroundMarker, tokensOf, type Keep, type Omission } from "./token-budget.js";

interface Piece {
  text: string;
  bytes: number;
  /** Absolute output offset of the piece's first byte; undefined for acp-process's own notes. */
  offset: number | undefined;
}

/**
 * Keeps the head and the tail of text that arrives in pieces (a poll paging through stored items),
 * within `capBytes` of UTF-8, without holding what falls between them: memory stays bounded
 * however much is pending. Cuts fall on line breaks where one is near (line-cut.ts), else on
 * character boundaries; what was left out is counted, with the absolute offset where it starts
 * when that piece is the command's output.
 */
export class HeadTailCollector {
  private readonly headCap: number;
  private readonly tailCap: number;
  private head = "";
  private headBytes = 0;
  /** Absolute offset just after the head's last byte, when that byte is output; and how many output bytes end there without a gap. */
  private headEndOffset: number | undefined;
  private headRunBytes = 0;
  private readonly tail: Piece[] = [];
  private tailBytes = 0;
  private totalBytes = 0;
  private omittedOffset: number | undefined;
  private omittedKnown = false;
  /** Whether the last piece dropped from the tail ended a line (the tail then starts one). */
  private droppedEndsLine = false;

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
      this.noteHeadEnd(offset, taken.bytes);
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

  /** The kept text around the line `marker(omission)` (when something was left out), and the omission. */
  result(marker: (omitted: Omission) => string): {
    text: string;
    omitted?: Omission;
    totalBytes: number;
  } {
    const tailText = this.tail.map((piece) => piece.text).join("");
    if (this.totalBytes - this.headBytes - this.tailBytes <= 0 && this.tailBytes <= this.tailCap) {
      return { text: this.head + tailText, totalBytes: this.totalBytes };
    }
    const tailBuffer = Buffer.from(tailText, "utf8");
    const edge = Math.max(0, tailBuffer.length - this.tailCap);
    if (edge > 0 && this.tail[0]) {
      this.noteOmitted(this.tail[0].offset);
    }
    const tail = tailStart(tailBuffer, edge, this.droppedEndsLine);
    const head = this.lineHead();
    const keptTail = tailBuffer.length - tail.start;
    const omittedBytes = this.totalBytes - head.bytes - keptTail;
    const partial = partialLines(head.partial, tail.partial);
    const omitted: Omission = {
      bytes: omittedBytes,
      tokens: tokensOf(omittedBytes),
      ...(head.offset !== undefined ? { offset: head.offset } : {}),
      ...(partial ? { partial } : {}),
    };
    return {
      text: aroundMarker(
        head.text,
        marker(omitted),
        tailBuffer.subarray(tail.start).toString("utf8"),
      ),
      omitted,
      totalBytes: this.totalBytes,
    };
  }

  /**
   * The head cut after its last line break near its end. The bytes cut join the omission, whose
   * offset moves back by as much; where that would not be exact (the head does not end in output
   * contiguous with the omission) the head stays whole and its last line is partial.
   */
  private lineHead(): {
    text: string;
    bytes: number;
    offset: number | undefined;
    partial: boolean;
  } {
    const offset = this.omittedOffset;
    if (this.headBytes === 0) {
      return { text: "", bytes: 0, offset, partial: false };
    }
    const bytes = Buffer.from(this.head, "utf8");
    const { end, partial } = headEnd(bytes);
    const cut = bytes.length - end;
    const exact =
      offset === undefined || (this.headEndOffset === offset && cut <= this.headRunBytes);
    if (cut === 0 || !exact) {
      return { text: this.head, bytes: bytes.length, offset, partial: partial || cut > 0 };
    }
    return {
      text: bytes.subarray(0, end).toString("utf8"),
      bytes: end,
      offset: offset === undefined ? undefined : offset - cut,
      partial: false,
    };
  }

  private noteHeadEnd(offset: number | undefined, bytes: number): void {
    if (bytes === 0) {
      return;
    }
    if (offset === undefined) {
      this.headEndOffset = undefined;
      this.headRunBytes = 0;
      return;
    }
    this.headRunBytes = this.headEndOffset === offset ? this.headRunBytes + bytes : bytes;
    this.headEndOffset = offset + bytes;
  }

  private drop(piece: Piece): void {
    this.tailBytes -= piece.bytes;
    this.droppedEndsLine = piece.text.endsWith("\n");
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
