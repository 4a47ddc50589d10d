import { FRAME_MS } from "../view/renderer.js";
import { FrameTimer } from "./frame-timer.js";
import type { Output } from "./output.js";
import { GUTTER, PLAIN_STREAM_LINES, type TerminalView } from "./tool-call-lines.js";

/**
 * Piped: the first PLAIN_STREAM_LINES lines of each terminal a tool call shows, printed as they
 * complete, at most once a frame, and not while the reader lags (then once it has caught up).
 * Lines are taken from the terminal's `OutputLines`, which kept them as they came.
 */
export class PipedLines {
  /** Terminals with output not yet streamed. */
  readonly #unstreamed = new Set<string>();
  readonly #timer: FrameTimer;

  constructor(
    out: Output,
    private readonly terminal: (terminalId: string) => TerminalView | undefined,
    private readonly print: (line: string) => void,
  ) {
    this.#timer = new FrameTimer(out, () => this.flush(), FRAME_MS);
  }

  /** The terminal has new output: its complete lines are printed on the next frame. */
  schedule(terminalId: string): void {
    this.#unstreamed.add(terminalId);
    this.#timer.schedule();
  }

  /** The terminal's lines are printed at the next flush (from its first, when it was just attached). */
  mark(terminalId: string): void {
    this.#unstreamed.add(terminalId);
  }

  /** Prints the lines terminals completed since the last time, up to each one's cap. */
  flush(): void {
    if (this.#unstreamed.size === 0) {
      return;
    }
    const ids = [...this.#unstreamed];
    this.#unstreamed.clear();
    for (const id of ids) {
      const term = this.terminal(id);
      if (
        term?.toolCallId === undefined ||
        term.lines === undefined ||
        term.streamed >= PLAIN_STREAM_LINES
      ) {
        continue;
      }
      const lines = term.lines.head(PLAIN_STREAM_LINES).slice(term.streamed);
      term.streamed += lines.length;
      for (const line of lines) {
        this.print(GUTTER + line);
      }
    }
  }

  /** Drops a pending print (not a wait for the reader to catch up). */
  cancel(): void {
    this.#timer.cancel();
  }
}
