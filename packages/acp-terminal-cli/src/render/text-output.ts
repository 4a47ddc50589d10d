import { LiveRegion } from "./live-region.js";
import type { Output } from "./output.js";

/** Message text held back while the live region is up, before it is written anyway. */
const MAX_PENDING_TEXT = 4096;
/** What each line of the agent's reasoning starts with. */
export const THOUGHT_GUTTER = "┊ ";
const DIM = "\x1b[2m";
const UNDIM = "\x1b[22m";

/**
 * Where the text renderer writes, in order: message text as it streams, lines and blocks printed
 * for good, notices on stderr. On a TTY everything goes above the live region (cleared, written,
 * drawn again), and a message's unfinished line is held until its newline, since it cannot sit
 * above the region; a line printed after an unfinished one starts on a line of its own.
 */
export class TextOutput {
  /** The region redrawn in place at the bottom of a TTY; undefined when piped. */
  readonly live: LiveRegion | undefined;
  /** Piped: the tool call whose header is the last line printed (nothing printed after it). */
  headerOnTop: string | undefined;
  #openLine = false;
  #pendingText = "";
  /** What the text written last is: message or thought text (a change starts a new line). */
  #kind: "message" | "thought" = "message";
  /** The next thought text starts a line (and gets the thought gutter). */
  #thoughtLineStart = true;
  /** Questions in progress (they may overlap). */
  #pauses = 0;

  constructor(
    private readonly out: Output,
    private readonly err: Output,
    frame: () => string[],
  ) {
    this.live = out.isTTY ? new LiveRegion(out, frame, () => this.breakLine()) : undefined;
  }

  /**
   * The agent's reasoning, continuing it: each of its lines behind THOUGHT_GUTTER, dimmed on a
   * TTY, and on a line of its own apart from message text.
   */
  thought(text: string): void {
    this.#switchTo("thought");
    let shaped = "";
    for (const part of text.split(/(?<=\n)/)) {
      if (part === "") {
        continue;
      }
      const ends = part.endsWith("\n");
      const line =
        (this.#thoughtLineStart ? THOUGHT_GUTTER : "") + (ends ? part.slice(0, -1) : part);
      // Dimmed up to the line's end, so that the newline ends the line (nothing else does).
      shaped += (this.out.isTTY ? `${DIM}${line}${UNDIM}` : line) + (ends ? "\n" : "");
      this.#thoughtLineStart = ends;
    }
    this.#write(shaped);
  }

  /** Message text, continuing the message. */
  text(text: string): void {
    this.#switchTo("message");
    this.#write(text);
  }

  #switchTo(kind: "message" | "thought"): void {
    if (this.#kind === kind) {
      return;
    }
    this.#kind = kind;
    this.#thoughtLineStart = true;
    if (this.live === undefined || !this.live.active) {
      this.breakLine();
    } else if (this.#pendingText !== "") {
      this.#write("\n");
    }
  }

  #write(text: string): void {
    if (this.live === undefined || !this.live.active) {
      this.flushText();
      this.write(text);
      return;
    }
    // A partial line cannot sit above the live region: hold it until its newline comes.
    const all = this.#pendingText + text;
    const cut = all.length > MAX_PENDING_TEXT ? all.length : all.lastIndexOf("\n") + 1;
    this.#pendingText = all.slice(cut);
    if (cut > 0) {
      this.live.clear();
      this.write(all.slice(0, cut));
      this.breakLine();
      this.live.draw();
    }
  }

  /** Appends a permanent line above the live region. */
  print(line: string): void {
    this.live?.clear();
    this.breakLine();
    this.out.write(`${line}\n`);
    this.headerOnTop = undefined;
    this.live?.draw();
  }

  /** Prints lines for good, after the message text held back so far. */
  printBlock(lines: string[]): void {
    this.live?.clear();
    this.flushText();
    this.breakLine();
    this.out.write(lines.map((line) => `${line}\n`).join(""));
    this.headerOnTop = undefined;
    this.live?.draw();
  }

  notice(message: string): void {
    this.live?.clear();
    this.breakLine();
    this.err.write(`${message}\n`);
    this.live?.draw();
  }

  redraw(): void {
    this.live?.clear();
    this.live?.draw();
  }

  pause(): void {
    if (this.#pauses++ > 0) {
      return;
    }
    this.live?.hold();
    this.breakLine();
  }

  resume(): void {
    if (--this.#pauses === 0) {
      this.live?.release();
    }
  }

  /** The region goes, the text held back is written, then the closing lines on stderr. */
  close(closing: string[]): void {
    this.live?.dispose();
    this.flushText();
    this.breakLine();
    this.err.write(closing.map((line) => `${line}\n`).join(""));
  }

  private flushText(): void {
    const pending = this.#pendingText;
    this.#pendingText = "";
    if (pending !== "") {
      this.write(pending);
    }
  }

  private write(text: string): void {
    this.out.write(text);
    if (text === "") {
      return;
    }
    this.#openLine = !text.endsWith("\n");
    this.headerOnTop = undefined;
  }

  private breakLine(): void {
    if (!this.#openLine) {
      return;
    }
    this.out.write("\n");
    this.#openLine = false;
  }
}
