import { createRequire } from "node:module";
import type { IBuffer, Terminal as XtermTerminal } from "@xterm/headless";

type XtermModule = typeof import("@xterm/headless");
const requireModule = createRequire(import.meta.url);

/**
 * Cells (columns × lines) of scrollback one screen may hold: xterm keeps 12 bytes per cell, so
 * about 12 MB at most, whatever the width (80 columns: 12,500 lines).
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
 * Memory: the screen plus at most `scrollbackLines` lines (see `scrollbackLinesFor`).
 */
export class Screen {
  readonly #term: XtermTerminal;
  readonly #core: XtermCore;
  readonly #scrollbackLines: number;

  constructor(cols: number, rows: number, scrollbackLines: number) {
    const { Terminal } = requireModule("@xterm/headless") as XtermModule;
    this.#scrollbackLines = scrollbackLines;
    this.#term = new Terminal({ cols, rows, scrollback: scrollbackLines, logLevel: "off", allowProposedApi: true });
    const core = (this.#term as unknown as { _core?: Partial<XtermCore> })._core;
    if (typeof core?.writeSync !== "function") {
      throw new Error("@xterm/headless has no synchronous write (_core.writeSync); install the version acp-terminal pins");
    }
    this.#core = core as XtermCore;
  }

  get cols(): number {
    return this.#term.cols;
  }

  get rows(): number {
    return this.#term.rows;
  }

  /** Parses `data` now; an incomplete character or escape sequence at its end waits for the next write. */
  write(data: Uint8Array | string): void {
    if (data.length > 0) this.#core.writeSync(data);
  }

  resize(cols: number, rows: number): void {
    if (cols !== this.#term.cols || rows !== this.#term.rows) this.#term.resize(cols, rows);
  }

  /** Back to a blank screen with no scrollback and the parser in its ground state. */
  reset(): void {
    this.#term.reset();
  }

  /**
   * Whether scrollback lines may have been dropped: the normal buffer is full (xterm drops the
   * oldest line on each further scroll and does not say so).
   */
  get scrollbackFull(): boolean {
    return this.#term.buffer.normal.length >= this.#term.rows + this.#scrollbackLines;
  }

  /**
   * The text: scrollback plus screen of the normal buffer, each row with trailing blanks removed
   * and rows a long line wrapped onto joined back into one line, down to the cursor's row or the
   * last row with text, whichever is lower (so output ending in a newline ends in "\n"). While a
   * full-screen program has the alternate screen up, its rows follow the normal buffer's text,
   * since that is what shows now; once it leaves, only the normal buffer remains (as a terminal
   * shows it).
   */
  render(): string {
    const { normal, active } = this.#term.buffer;
    const alternate = active.type === "alternate";
    const main = bufferText(normal, alternate ? 0 : normal.baseY + normal.cursorY + 1);
    if (!alternate) return main;
    const screen = bufferText(active, active.cursorY + 1);
    return main === "" ? screen : `${main}\n${screen}`;
  }

  dispose(): void {
    this.#term.dispose();
  }
}

/** Scrollback for a screen whose text is cut to `byteLimit` bytes: every line costs a byte ("\n"). */
export function scrollbackLinesFor(cols: number, byteLimit: number): number {
  return Math.max(0, Math.min(byteLimit, Math.floor(MAX_SCROLLBACK_CELLS / cols)));
}

/** Lines `[0, max(minRows, last row with text + 1))` of `buffer`, wrapped rows joined. */
function bufferText(buffer: IBuffer, minRows: number): string {
  let end = buffer.length;
  while (end > minRows && isBlank(buffer, end - 1)) end--;
  const lines: string[] = [];
  let current = "";
  for (let y = 0; y < end; y++) {
    const line = buffer.getLine(y);
    if (!line) continue;
    const continues = buffer.getLine(y + 1)?.isWrapped === true && y + 1 < end;
    current += line.translateToString(!continues);
    if (continues) continue;
    lines.push(current);
    current = "";
  }
  return lines.join("\n");
}

function isBlank(buffer: IBuffer, y: number): boolean {
  const line = buffer.getLine(y);
  return line === undefined || line.translateToString(true) === "";
}
