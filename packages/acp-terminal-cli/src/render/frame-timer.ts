import type { Output } from "./output.js";

/**
 * Runs `run` once `delayMs` from the first `schedule()`, calls in between coalescing; while the
 * reader lags (written text still waits in memory), once it has caught up instead.
 */
export class FrameTimer {
  #timer: NodeJS.Timeout | undefined;
  #waitingForDrain = false;

  constructor(
    private readonly out: Output,
    private readonly run: () => void,
    private readonly delayMs: number,
  ) {}

  schedule(): void {
    if (this.#timer !== undefined || this.#waitingForDrain) {
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.out.lagging === true && this.out.onDrain !== undefined) {
        this.#waitingForDrain = true;
        this.out.onDrain(() => {
          this.#waitingForDrain = false;
          this.schedule();
        });
        return;
      }
      this.run();
    }, this.delayMs);
    this.#timer.unref();
  }

  /** Drops a pending run (not a wait for the reader to catch up). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
