import { createRequire } from "node:module";
import type { IBuffer, IMarker, Terminal as XtermTerminal } from "@xterm/headless";
import { TextHistory } from "./text-history.js";
import { tailWithinBytes } from "./utf8-text.js";

type XtermModule = typeof import("@xterm/headless");
const requireModule = createRequire(import.meta.url);

/**
 * Lines xterm keeps above the screen. Lines that scroll off are moved into the text history after
 * every write of at most `LINES_PER_WRITE` lines, so xterm only has to hold the lines one such
 * write scrolls (a line of text can wrap onto a few rows, hence the margin).
 */
export const SCROLLBACK_LINES = 1000;
const LINES_PER_WRITE = 250;
/**
 * Cells (columns × lines) of scrollback at most: xterm keeps 12 bytes per cell, so about 12 MB
 * whatever the width (1000 columns: 1000 lines).
 */
export const MAX_SCROLLBACK_CELLS = 1_000_000;

/** The part of xterm's core used here: its synchronous parse (the public `write` parses on timers). */
interface XtermCore {
  writeSync(data: string | Uint8Array): void;
}

/**
 * A terminal emulator (`@xterm/headless`, VS Code's terminal core) that turns PTY bytes into the
 * text a person would see: cursor movement, line erases, wide characters and the alternate screen
 * are drawn as a terminal draws them. Parsing is synchronous (`write`), so what has been written
 * is on the screen when `render()` is called; xterm's UTF-8 decoder and escape parser keep their
 * state between writes, so a character or escape sequence split across two writes is whole.
 *
 * Lines that scrolled off the top of the normal screen cannot change any more: `write` moves
 * them into a text history, so `render()` turns only the screen (and lines scrolled since) into
 * text, not the whole scrollback. The history keeps about `maxTextBytes` UTF-8 bytes
 * (`TextHistory`); xterm's own scrollback only has to hold the lines one write scrolls.
 */
export class Screen {
  readonly #term: XtermTerminal;
  readonly #core: XtermCore;
  /** Lines committed from the scrollback, each followed by "\n". */
  readonly #history: TextHistory;
  /** The first normal-buffer line not yet in `#history` (xterm moves it as lines are trimmed). */
  #marker: IMarker | undefined;
  #linesDropped = false;

  /** `convertEol`: a line feed also returns the cursor to column 0 (output from a pipe, not a PTY). */
  constructor(
    cols: number,
    rows: number,
    scrollbackLines: number,
    maxTextBytes: number,
    options: { convertEol?: boolean } = {},
  ) {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- @xterm/headless: loaded with require() (its type is XtermModule), and its private _core, which it does not type
    const { Terminal } = requireModule("@xterm/headless") as XtermModule;
    this.#history = new TextHistory(maxTextBytes);
    this.#term = new Terminal({
      cols,
      rows,
      scrollback: scrollbackLines,
      logLevel: "off",
      allowProposedApi: true,
      convertEol: options.convertEol === true,
    });
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- @xterm/headless: loaded with require() (its type is XtermModule), and its private _core, which it does not type
    const core = (this.#term as unknown as { _core?: Partial<XtermCore> })._core;
    if (typeof core?.writeSync !== "function") {
      throw new Error(
        "@xterm/headless has no synchronous write (_core.writeSync); install the version acp-terminal pins",
      );
    }
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- @xterm/headless: loaded with require() (its type is XtermModule), and its private _core, which it does not type
    this.#core = core as XtermCore;
    this.#marker = this.#term.registerMarker(0);
  }

  get cols(): number {
    return this.#term.cols;
  }

  get rows(): number {
    return this.#term.rows;
  }

  /** Parses `data` now; an incomplete character or escape sequence at its end waits for the next write. */
  write(data: Uint8Array | string): void {
    let start = 0;
    while (start < data.length) {
      const end = afterLines(data, start, LINES_PER_WRITE);
      this.#core.writeSync(
        typeof data === "string" ? data.slice(start, end) : data.subarray(start, end),
      );
      this.#commitScrolledLines();
      start = end;
    }
  }

  resize(cols: number, rows: number): void {
    if (cols !== this.#term.cols || rows !== this.#term.rows) {
      this.#term.resize(cols, rows);
    }
  }

  /** Back to a blank screen with no scrollback or history and the parser in its ground state. */
  reset(): void {
    this.#term.reset();
    this.#history.clear();
    this.#linesDropped = false;
    this.#marker?.dispose();
    this.#marker = this.#term.registerMarker(0);
  }

  /**
   * Whether lines were dropped: the history was cut to `maxTextBytes`, or xterm's scrollback
   * trimmed lines before they were committed (more lines than it holds scrolled in one write).
   */
  get linesDropped(): boolean {
    return this.#linesDropped || this.#history.dropped;
  }

  /**
   * The text: history, scrollback and screen of the normal buffer, each row with trailing blanks
   * removed and rows a long line wrapped onto joined back into one line, down to the cursor's row
   * or the last row with text, whichever is lower (so output ending in a newline ends in "\n").
   * While a full-screen program has the alternate screen up, its rows follow the normal buffer's
   * text, since that is what shows now; once it leaves, only the normal buffer remains (as a
   * terminal shows it).
   */
  render(): string {
    return this.renderWithin(Number.POSITIVE_INFINITY).text;
  }

  /**
   * `render()`'s text cut from the front to `limit` UTF-8 bytes on a character boundary, and
   * whether it was cut. Costs the screen's rows plus the history kept, never a scan of all of it.
   */
  renderWithin(limit: number): { text: string; cut: boolean } {
    const { normal, active } = this.#term.buffer;
    const alternate = active.type === "alternate";
    const from = this.#firstUncommittedLine();
    let live = bufferText(normal, from, alternate ? from : normal.baseY + normal.cursorY + 1);
    if (alternate) {
      const screen = bufferText(active, 0, active.cursorY + 1);
      live = live === "" && this.#history.bytes === 0 ? screen : `${live}\n${screen}`;
    }
    const liveBytes = Buffer.byteLength(live);
    if (liveBytes >= limit) {
      const { text, cut } = tailWithinBytes(live, limit);
      return { text, cut: cut || this.#history.bytes > 0 };
    }
    const history = this.#history.tail(limit - liveBytes);
    return { text: history.text + live, cut: history.cut };
  }

  dispose(): void {
    this.#term.dispose();
  }

  #firstUncommittedLine(): number {
    if (this.#marker && !this.#marker.isDisposed) {
      return this.#marker.line;
    }
    this.#linesDropped = true; // trimmed by xterm before it was committed
    return 0;
  }

  /** Moves whole lines that scrolled above the normal screen into `#history`. */
  #commitScrolledLines(): void {
    const { normal, active } = this.#term.buffer;
    if (active.type !== "normal") {
      return;
    }
    const from = this.#firstUncommittedLine();
    let y = from;
    let committed = "";
    while (y < normal.baseY) {
      let last = y;
      while (normal.getLine(last + 1)?.isWrapped === true) {
        last++;
      }
      if (last >= normal.baseY) {
        break;
      } // the line goes on onto the screen: it may still change
      committed += `${logicalLine(normal, y, last)}\n`;
      y = last + 1;
    }
    if (y === from && this.#marker && !this.#marker.isDisposed) {
      return;
    }
    this.#history.append(committed);
    this.#marker?.dispose();
    this.#marker = this.#term.registerMarker(y - (normal.baseY + normal.cursorY));
  }
}

/** xterm's scrollback for a screen `cols` wide: `SCROLLBACK_LINES`, fewer beyond 1000 columns. */
export function scrollbackLinesFor(cols: number): number {
  return Math.min(SCROLLBACK_LINES, Math.floor(MAX_SCROLLBACK_CELLS / cols));
}

/** The index just after the `lines`-th line feed from `start` in `data`, or its end. */
function afterLines(data: Uint8Array | string, start: number, lines: number): number {
  let at = start;
  for (let line = 0; line < lines; line++) {
    const feed = typeof data === "string" ? data.indexOf("\n", at) : data.indexOf(0x0a, at);
    if (feed === -1) {
      return data.length;
    }
    at = feed + 1;
  }
  return at;
}

/** Lines `[from, max(minEnd, last row with text + 1))` of `buffer`, wrapped rows joined. */
function bufferText(buffer: IBuffer, from: number, minEnd: number): string {
  let end = buffer.length;
  while (end > Math.max(from, minEnd) && isBlank(buffer, end - 1)) {
    end--;
  }
  const lines: string[] = [];
  let y = from;
  while (y < end) {
    let last = y;
    while (last + 1 < end && buffer.getLine(last + 1)?.isWrapped === true) {
      last++;
    }
    lines.push(logicalLine(buffer, y, last));
    y = last + 1;
  }
  return lines.join("\n");
}

/** Rows `first..last` (a line and the rows it wrapped onto) as one line, trailing blanks removed. */
function logicalLine(buffer: IBuffer, first: number, last: number): string {
  let text = "";
  for (let y = first; y <= last; y++) {
    text += buffer.getLine(y)?.translateToString(y === last) ?? "";
  }
  return text;
}

function isBlank(buffer: IBuffer, y: number): boolean {
  const line = buffer.getLine(y);
  return line === undefined || line.translateToString(true) === "";
}
