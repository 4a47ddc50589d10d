import type { OutputReader } from "acp-terminal";
import type { ScreenSource } from "../view/agent-terminal.js";

/**
 * A v1 PTY terminal's output as its screen shows it, for the CLI's tail: the host's own emulator
 * rendering (what `terminal/output` answers with), so a progress bar redrawn with `\r` or
 * `ESC[2K`, cursor moves and full-screen redraws read as they would on a terminal, where stripping
 * escapes from raw lines could not. The text is kept at the exit: the host lets its emulator go
 * when the terminal is released, and nothing is written after the exit.
 */
export class HostScreen implements ScreenSource {
  #frozen: string | undefined;

  constructor(
    private readonly render: () => string,
    private readonly source: OutputReader,
  ) {}

  get version(): number {
    return this.source.version * 2 + (this.#frozen === undefined ? 0 : 1);
  }

  text(): string {
    return this.#frozen ?? this.render();
  }

  freeze(): void {
    this.#frozen ??= this.render();
  }
}
