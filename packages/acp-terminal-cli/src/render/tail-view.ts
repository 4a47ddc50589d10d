/** Lines a display leaves out, and their bytes when known (a pipe terminal's, not a screen's). */
export interface LineCount {
  lines: number;
  bytes?: number;
}

/** The newest lines of a terminal, as a tail shows them (a pipe's byte stream's or a screen's). */
export interface TailView {
  readonly partialLine: string | undefined;
  tail(): string[];
  /** Lines (the unfinished one included) that `tail()` does not show. */
  hiddenLines(): LineCount;
  /** Nothing more will be drawn live: keep only what the tail shows. */
  freeze(): void;
}
