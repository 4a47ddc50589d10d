import stripAnsi from "strip-ansi";

/** Lines a tail keeps by default: what a reader glances at, not a log. */
export const DEFAULT_TAIL_LINES = 10;
/** Characters kept of any one line; longer lines end with an ellipsis. */
export const MAX_LINE_CHARS = 400;

/** True for the second half of a surrogate pair: cutting before it would leave half a character. */
function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The first `max` UTF-16 units of `text`, or one fewer so that a surrogate pair stays whole. */
export function headWhole(text: string, max: number): string {
  return text.slice(0, isLowSurrogate(text, max) ? max - 1 : max);
}

/** The last `max` UTF-16 units of `text`, or one fewer so that a surrogate pair stays whole. */
function tailWhole(text: string, max: number): string {
  const start = text.length - max;
  return text.slice(isLowSurrogate(text, start) ? start + 1 : start);
}

/** One line as a terminal would show it: escape sequences gone, `\r` overwrites from the start. */
function displayLine(raw: string): string {
  const withoutCr = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  const lastCr = withoutCr.lastIndexOf("\r");
  const visible = stripAnsi(lastCr === -1 ? withoutCr : withoutCr.slice(lastCr + 1));
  return visible.length > MAX_LINE_CHARS ? `${headWhole(visible, MAX_LINE_CHARS - 1)}…` : visible;
}

/**
 * The newest lines of a terminal's output, for display. Bytes go through one streaming decoder so
 * characters split across chunks stay whole; memory is bounded by `maxLines` and the line cap.
 */
export class TerminalTail {
  private readonly decoder = new TextDecoder();
  private readonly lines: string[] = [];
  private partial = "";
  private completed = 0;

  constructor(private readonly maxLines = DEFAULT_TAIL_LINES) {}

  /** Adds output; returns the lines this chunk completed (for streaming display). */
  push(bytes: Uint8Array): string[] {
    const text = this.partial + this.decoder.decode(bytes, { stream: true });
    const pieces = text.split("\n");
    this.partial = pieces.pop() ?? "";
    // A line without a newline can grow without bound (progress bars): keep its newest part.
    if (this.partial.length > MAX_LINE_CHARS * 4) this.partial = tailWhole(this.partial, MAX_LINE_CHARS * 4);
    const done = pieces.map(displayLine);
    this.completed += done.length;
    for (const line of done.slice(-this.maxLines)) this.lines.push(line);
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
    return done;
  }

  /** The unfinished last line as displayed, or undefined when output ends with a newline. */
  get partialLine(): string | undefined {
    const line = displayLine(this.partial);
    return line === "" ? undefined : line;
  }

  /** Complete lines seen so far. */
  get completedLines(): number {
    return this.completed;
  }

  /** The newest complete lines, at most `maxLines`. */
  completeTail(): string[] {
    return [...this.lines];
  }

  /** The newest lines, the unfinished one included, at most `maxLines`. */
  tail(): string[] {
    const partial = this.partialLine;
    const all = partial === undefined ? [...this.lines] : [...this.lines, partial];
    return all.slice(-this.maxLines);
  }

  /** Lines (the unfinished one included) that `tail()` no longer shows. */
  get hiddenLines(): number {
    const total = this.completed + (this.partialLine === undefined ? 0 : 1);
    return Math.max(0, total - this.maxLines);
  }
}
