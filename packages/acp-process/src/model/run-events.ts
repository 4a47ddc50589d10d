import type { RunItem, RunRecord, RunStatus } from "./run-record.js";

/** A run as callers see it: the record plus derived figures. */
export interface RunSnapshot extends Readonly<RunRecord> {
  durationMs: number | null;
}

export interface WatcherSpec {
  /** JavaScript regular expression source (no slashes). */
  regex: string;
  /** Flags among `i`, `m`, `s`, `u`. */
  flags?: string | undefined;
  /** Name delivered with each hit. Default: the regex. */
  event?: string | undefined;
  /** Remove after the first hit. Default false. */
  once?: boolean | undefined;
  /** `line`: tested against each complete line. `stream`: against the raw text, across chunk boundaries. */
  scope?: "line" | "stream" | undefined;
}

export type RunEvent =
  | { type: "status"; run: RunSnapshot; previous: RunStatus | null }
  | { type: "output"; runId: string; sessionId: string; item: RunItem }
  /** `seq` is the hit's `event` item; `snippet` the last output (at most 400 characters) when it matched. */
  | {
      type: "watch";
      runId: string;
      sessionId: string;
      watcherId: string;
      event: string;
      match: string;
      seq: number;
      snippet: string;
    }
  /** A PTY run was resized (`run.ptySize`). */
  | { type: "resize"; run: RunSnapshot }
  /** The run began (`run.inputRequired` set) or stopped (null) waiting for input. */
  | { type: "input"; run: RunSnapshot }
  | { type: "exit"; run: RunSnapshot };

export type RunEventSink = (event: RunEvent) => void;
