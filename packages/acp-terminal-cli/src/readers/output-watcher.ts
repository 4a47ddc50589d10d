import type { OutputReader } from "acp-terminal";
import { FRAME_MS } from "../view/renderer.js";

/**
 * Asks the buffers of the terminals it follows whether they changed, once a frame: the CLI does
 * no work per output chunk, however fast output comes (a listener on every chunk costs allocations
 * that add up to megabytes of garbage per gigabyte). `check(id)` asks one at once (before its exit
 * is shown, so its last output comes first). The timer runs only while it follows a terminal.
 */
export class OutputWatcher {
  private readonly followed = new Map<string, { reader: OutputReader; version: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly onChange: (terminalId: string) => void,
    private readonly intervalMs = FRAME_MS,
  ) {}

  follow(terminalId: string, reader: OutputReader): void {
    this.followed.set(terminalId, { reader, version: reader.version });
    this.timer ??= setInterval(() => this.checkAll(), this.intervalMs).unref();
  }

  forget(terminalId: string): void {
    this.followed.delete(terminalId);
    if (this.followed.size > 0) {
      return;
    }
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reports the terminal if its buffer changed since it was last asked. */
  check(terminalId: string): void {
    const entry = this.followed.get(terminalId);
    if (entry === undefined || entry.reader.version === entry.version) {
      return;
    }
    entry.version = entry.reader.version;
    this.onChange(terminalId);
  }

  private checkAll(): void {
    for (const terminalId of this.followed.keys()) {
      this.check(terminalId);
    }
  }
}
