import { MAX_LINE_CHARS, headWhole } from "./display-line.js";
import type { ScreenSource } from "../view/agent-terminal.js";
import { DEFAULT_TAIL_LINES } from "./output-lines.js";
import type { LineCount, TailView } from "./tail-view.js";

/**
 * The newest lines of a terminal's screen (an agent's terminal's, or a PTY terminal's of the CLI
 * through the host's emulator), for the text renderer: the same questions `OutputLines` answers
 * for a pipe terminal's byte stream, asked of the emulator's rendering (its
 * lines are what a person sees, so a redrawn progress bar is one line). Cached per version.
 */
export class ScreenTail implements TailView {
  #cached: { version: number; complete: string[]; partial: string | undefined } | undefined;

  constructor(
    private readonly terminal: ScreenSource,
    private readonly maxLines = DEFAULT_TAIL_LINES,
  ) {}

  get partialLine(): string | undefined {
    return this.#lines().partial;
  }

  tail(): string[] {
    const { complete, partial } = this.#lines();
    const all = partial === undefined ? complete : [...complete, partial];
    return all.slice(-this.maxLines).map(shown);
  }

  hiddenLines(): LineCount {
    const { complete, partial } = this.#lines();
    const total = complete.length + (partial === undefined ? 0 : 1);
    return { lines: Math.max(0, total - this.maxLines) };
  }

  freeze(): void {
    this.terminal.freeze();
  }

  #lines(): { complete: string[]; partial: string | undefined } {
    const version = this.terminal.version;
    if (this.#cached?.version === version) {
      return this.#cached;
    }
    const pieces = this.terminal.text().split("\n");
    const last = pieces.pop() ?? "";
    this.#cached = { version, complete: pieces, partial: last === "" ? undefined : last };
    return this.#cached;
  }
}

function shown(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${headWhole(line, MAX_LINE_CHARS - 1)}…` : line;
}
