import { fitColumns } from "./display-width.js";
import { FrameTimer } from "./frame-timer.js";
import type { Output } from "./output.js";
import { FRAME_MS } from "../view/renderer.js";

/** Lines the region may take, so a redraw never scrolls the screen. */
const MAX_REGION_LINES = 40;

/**
 * The bottom of a TTY screen, redrawn in place: the cursor goes back up over what was drawn,
 * clears to the end of the screen, and draws the new frame. Only for outputs that are a TTY.
 */
export class LiveRegion {
  private drawn = 0;
  private held = false;
  private readonly redraw: FrameTimer;

  constructor(
    private readonly out: Output,
    private readonly frame: () => string[],
    private readonly beforeDraw: () => void,
  ) {
    this.redraw = new FrameTimer(
      out,
      () => {
        this.clear();
        this.draw();
      },
      FRAME_MS,
    );
  }

  get active(): boolean {
    return this.frame().length > 0;
  }

  clear(): void {
    if (this.drawn === 0) {
      return;
    }
    // CPL (cursor to the start of a previous line) n times, then ED (erase to end of screen).
    this.out.write(`\x1b[${this.drawn}F\x1b[0J`);
    this.drawn = 0;
  }

  draw(): void {
    if (this.held) {
      return;
    }
    const lines = this.frame().slice(-MAX_REGION_LINES);
    if (lines.length === 0) {
      return;
    }
    this.beforeDraw();
    const columns = this.out.columns !== undefined && this.out.columns > 0 ? this.out.columns : 80;
    const width = Math.max(20, columns - 1);
    this.out.write(lines.map((line) => `${fitColumns(line, width)}\n`).join(""));
    this.drawn = lines.length;
  }

  /** Takes the region off the screen and keeps it off (someone else needs the TTY) until `release`. */
  hold(): void {
    this.clear();
    this.held = true;
  }

  release(): void {
    this.held = false;
    this.draw();
  }

  /** Redraws on the next frame (or once a lagging reader has caught up); calls in between coalesce. */
  schedule(): void {
    this.redraw.schedule();
  }

  dispose(): void {
    this.redraw.cancel();
    this.clear();
  }
}
