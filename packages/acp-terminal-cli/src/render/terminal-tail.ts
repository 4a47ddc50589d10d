import type { OutputReader } from "acp-terminal";
import { displayLine, MAX_LINE_BYTES, tailWhole } from "./display-line.js";
import { FrozenOutput } from "./frozen-output.js";

/** Lines a tail keeps by default: what a reader glances at, not a log. */
export const DEFAULT_TAIL_LINES = 10;
const NEWLINE = 0x0a;
/** Decodes whole windows (no state between calls): one for every tail, not one per terminal. */
const decoder = new TextDecoder();

/** Lines in a terminal's output so far; `exact` is false once bytes went before they were counted. */
export interface LineCount {
  lines: number;
  exact: boolean;
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === NEWLINE) {
      count++;
    }
  }
  return count;
}

/**
 * The newest lines of a terminal's output, for display, read from the host's own buffer when they
 * are drawn: nothing is done per output byte as it arrives. Each read decodes only the newest
 * bytes that can hold the lines shown, and is cached until the buffer changes. Lines are counted
 * on the same reads, so the work per read is bounded by the buffer's limit, however fast output
 * comes; bytes the buffer dropped before a read are not counted (the count says it is a floor).
 */
export class TerminalTail {
  #source: OutputReader;
  #counted = 0;
  #newlines = 0;
  #exact = true;
  #cached: { version: number; complete: string[]; partial: string | undefined } | undefined;

  constructor(
    source: OutputReader,
    private readonly maxLines = DEFAULT_TAIL_LINES,
  ) {
    this.#source = source;
  }

  /** The buffer this tail reads (for a stream of its lines that must see the same bytes). */
  get source(): OutputReader {
    return this.#source;
  }

  /** The unfinished last line as displayed, or undefined when output ends with a newline. */
  get partialLine(): string | undefined {
    return this.#lines().partial;
  }

  /** The newest complete lines, at most `maxLines`. */
  completeTail(): string[] {
    return [...this.#lines().complete];
  }

  /** The newest lines, the unfinished one included, at most `maxLines`. */
  tail(): string[] {
    const { complete, partial } = this.#lines();
    return (partial === undefined ? complete : [...complete, partial]).slice(-this.maxLines);
  }

  /** Complete lines so far (newlines counted in what the buffer held when read). */
  completedLines(): LineCount {
    for (;;) {
      const { bytes, fromByte } = this.#source.viewSince(this.#counted);
      if (fromByte > this.#counted) {
        this.#exact = false;
      }
      this.#newlines += countNewlines(bytes);
      this.#counted = fromByte + bytes.byteLength;
      if (bytes.byteLength === 0) {
        return { lines: this.#newlines, exact: this.#exact };
      }
    }
  }

  /** Lines (the unfinished one included) that `tail()` does not show. */
  hiddenLines(): LineCount {
    const { lines, exact } = this.completedLines();
    const total = lines + (this.partialLine === undefined ? 0 : 1);
    return { lines: Math.max(0, total - this.tail().length), exact };
  }

  /**
   * Stops reading the host's buffer: keeps only the newest bytes the tail can show (the host's
   * buffer may be megabytes, and a released terminal's tail is drawn once more at most).
   */
  freeze(): void {
    if (this.#source instanceof FrozenOutput) {
      return;
    }
    this.completedLines();
    this.#source = new FrozenOutput(this.#source, this.#windowBytes());
  }

  /** Bytes from the end that hold `maxLines` lines of at most MAX_LINE_BYTES each, and the partial one. */
  #windowBytes(): number {
    return (this.maxLines + 1) * (MAX_LINE_BYTES + 1);
  }

  #lines(): { complete: string[]; partial: string | undefined } {
    const version = this.#source.version;
    if (this.#cached?.version === version) {
      return this.#cached;
    }
    const { bytes, fromByte } = this.#source.bytesSince(
      Math.max(0, this.#source.totalBytes - this.#windowBytes()),
    );
    const pieces = decoder.decode(bytes).split("\n");
    const last = pieces.pop() ?? "";
    // The first piece starts inside a line whose beginning was not read (unless it is the stream's start).
    if (fromByte > 0 && pieces.length > 0) {
      pieces.shift();
    }
    const complete = pieces.slice(-this.maxLines).map(displayLine);
    const partialLine = displayLine(tailWhole(last, MAX_LINE_BYTES));
    this.#cached = { version, complete, partial: partialLine === "" ? undefined : partialLine };
    return this.#cached;
  }
}
