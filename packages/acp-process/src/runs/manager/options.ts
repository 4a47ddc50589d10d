import type { Clock } from "../../base/clock.js";
import type { TerminalProvider } from "../../providers/types.js";
import type { RunStore } from "../../store/types.js";
import type { RunTuning } from "../run/run.js";
import type { SchedulerLimits } from "./scheduler.js";
import type { OutputSpillOptions } from "../spill/output-archive.js";
import type { ResourceLimits, RunStatus } from "../../model/run-record.js";
import type { RunEventSink, RunSnapshot, WatcherSpec } from "../../model/run-events.js";

export interface ProcessManagerOptions {
  /** Provider for every session. Either this or `providerFor`. */
  provider?: TerminalProvider;
  /** Provider per session (for example one `AcpTerminalProvider` per ACP session). */
  providerFor?: (sessionId: string) => TerminalProvider;
  /** Default: a `MemoryRunStore` retaining `maxOutputChars` per run. */
  store?: RunStore;
  /** Default: the system clock. Tests inject a `ManualClock` for TTLs and timeouts. */
  clock?: Clock;
  /** Receives status changes, output items, watcher hits and exactly one `exit` per run. */
  onEvent?: RunEventSink;
  /** Auto-background delay for `run()` (env `PI_BASH_YIELD_MS`). */
  yieldMs?: number;
  /** Output chars returned by views and retained by the default store (env `PI_BASH_MAX_OUTPUT_CHARS`). */
  maxOutputChars?: number;
  /** Finished runs expire after this (env `PI_BASH_JOB_TTL_MS`). */
  ttlMs?: number;
  /** Un-polled output `process poll` returns at most (env `OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS` / `ZERO_BASH_PENDING_MAX_OUTPUT_CHARS`). */
  pendingMaxOutputChars?: number;
  /** Environment read for the overrides above. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Hard timeout when a start request gives none. Default 1800000 (30 min); 0 = none. */
  defaultTimeoutMs?: number;
  /** Concurrency caps; default 16 runs, 16 per session, 64 queued. */
  limits?: Partial<SchedulerLimits>;
  /** Runs kept in the registry (finished ones are evicted oldest first beyond this). Default 500. */
  maxRuns?: number;
  /** How often the TTL sweeper runs on the clock. Default 60000; 0 = only when `sweep()` is called. */
  sweepIntervalMs?: number;
  tuning?: Partial<RunTuning>;
  /**
   * Where output past the store's window is kept, so every byte stays readable by offset:
   * `{directory?, quotaBytes?}` (default: the store's directory, else a temporary one; quota
   * 2 GiB for all runs, the oldest finished runs evicted first). `false`: nothing is spilled
   * (output past the window is dropped, as before).
   */
  outputSpill?: OutputSpillOptions | false;
}

export interface StartRunOptions {
  sessionId: string;
  /** A command line (run through the client's shell when `args` is omitted) or a program. */
  command: string;
  args?: string[];
  /** Absolute working directory. */
  cwd?: string;
  /** Variables added to the client's environment. */
  env?: Record<string, string>;
  /** Hard timeout; 0 = none. Default `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** Kill after this long without output; 0/omitted = none. */
  idleTimeoutMs?: number;
  /** Run in a PTY (provider must support it). */
  pty?: boolean | { cols: number; rows: number };
  /**
   * Keep stdin open for `write`/`sendKeys` (where the provider can write). Default false: commands
   * that read stdin see end-of-file instead of hanging. PTY runs always take input.
   */
  stdin?: boolean;
  /**
   * Output bytes kept for the run (UTF-8; omitted = no cap beyond the store's retention). Output
   * past it is not stored (a notice says so, `cappedBytes` counts it); the command keeps running
   * and watchers still see it.
   */
  maxOutputBytes?: number;
  /**
   * Kernel limits (rlimits) set before the command runs, by a `/bin/sh` wrapper using `ulimit`.
   * Only with the local provider: over ACP the client runs the command and cannot be told to.
   */
  resourceLimits?: ResourceLimits;
  /** Watchers installed before the first output is read. */
  watch?: WatcherSpec[];
  /** Free-form labels stored with the run. */
  labels?: Record<string, string>;
  /**
   * Called once the terminal exists (status `running`, `terminalId` set). The terminal is not
   * released before the returned promise settles (bounded by `tuning.releaseWaitMs`): embed
   * `{type: "terminal", terminalId}` in your tool call here, and a fast command cannot beat you.
   */
  onStart?: (run: RunSnapshot) => void | Promise<void>;
}

export interface ListRunsQuery {
  sessionId?: string;
  status?: RunStatus | readonly RunStatus[];
  /** Only runs carrying every one of these labels, with these values. */
  labels?: Readonly<Record<string, string>>;
  /** Newest first; default 50, max 500. */
  limit?: number;
}

export interface ReadQuery {
  sessionId?: string;
  /** First seq wanted. Default 0. */
  sinceSeq?: number;
  /** Most items returned; capped at 1000. Default 200. */
  limit?: number;
  /** Most characters of text returned (whole items; at least one). Default `maxOutputChars`. */
  maxChars?: number;
}

/** Which session's runs a call may touch (omitted: any session's). */
export interface SessionScope {
  sessionId?: string;
}

export interface LineQuery extends SessionScope {
  /** First line wanted (absolute); omitted: the last `limit` lines. */
  offset?: number;
  /** Default 200, max 10000. */
  limit?: number;
}

export interface TailQuery extends SessionScope {
  /** Default 2000. */
  maxChars?: number;
}

export interface WriteOptions extends SessionScope {
  /** Close stdin after the write. */
  eof?: boolean;
}

export interface KillOptions {
  sessionId?: string;
  /** A signal name (`SIGINT`, `SIGTERM`, ...) where the provider supports signals. */
  signal?: string;
  /** Escalate (SIGKILL where the provider takes signals, else its kill) after this long. Default `tuning.forceAfterMs`. */
  forceAfterMs?: number;
  /** False: deliver `signal` only, never escalate; the command may still be running afterwards. Default true. */
  escalate?: boolean;
}

export const DEFAULT_TUNING: RunTuning = {
  pollMinMs: 20,
  pollMaxMs: 500,
  exitDrainMs: 2000,
  killWaitMs: 10_000,
  forceAfterMs: 2000,
  releaseWaitMs: 5000,
  callWaitMs: 30_000,
  outputByteLimit: undefined,
  watcherLimits: {
    maxWatchers: 16,
    maxPatternLength: 512,
    streamWindowChars: 4096,
    maxLineChars: 16_384,
  },
};
