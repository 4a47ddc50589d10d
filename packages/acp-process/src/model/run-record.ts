import type { ResourceUsage } from "../providers/proc-usage.js";

/** Statuses a run moves through. `lost` only ever comes from start-up recovery. */
export type RunStatus =
  "queued" | "running" | "completed" | "failed" | "killed" | "timed_out" | "lost";

export const ACTIVE_STATUSES: readonly RunStatus[] = ["queued", "running"];
export const FINISHED_STATUSES: readonly RunStatus[] = [
  "completed",
  "failed",
  "killed",
  "timed_out",
  "lost",
];

export function isFinished(status: RunStatus): status is Exclude<RunStatus, "queued" | "running"> {
  return status !== "queued" && status !== "running";
}

/** Why a run ended other than on its own. The first cause wins. */
export type TerminationCause =
  "timeout" | "inactivity" | "kill" | "dispose" | "spawn_error" | "provider_error";

/** Everything persisted about a run (not its output). */
export interface RunRecord {
  id: string;
  sessionId: string;
  command: string;
  /** Program arguments; null = `command` is a command line for the client's shell. */
  args: string[] | null;
  cwd: string | null;
  env: Record<string, string> | null;
  pty: boolean;
  /** A PTY run's size: as it was started (80x24 unless asked), then as last resized. */
  ptySize?: { cols: number; rows: number };
  /** stdin was kept open for writes (a PTY always takes input). */
  stdin: boolean;
  status: RunStatus;
  exitCode: number | null;
  signal: string | null;
  cause: TerminationCause | null;
  /** Human-readable reason for `failed`/`timed_out`/`killed`/`lost` (`timed out after 30000 ms: npm test`). */
  error: string | null;
  createdAtMs: number;
  startedAtMs: number | null;
  endedAtMs: number | null;
  /** Provider terminal id while running. */
  terminalId: string | null;
  /** Hard timeout in ms (0 = none). */
  timeoutMs: number;
  /** Inactivity timeout in ms (0 = none). */
  idleTimeoutMs: number;
  /** Next `seq` to be assigned (items have `seq < nextSeq`). */
  nextSeq: number;
  /** Output bytes seen so far (UTF-8 of the text items). */
  outputBytes: number;
  /** Output bytes the client dropped before we could read them (exact), when known. */
  lostBytes: number;
  /** True when some output was lost in an amount we cannot know (snapshots without cursors). */
  lostUnknown: boolean;
  /** Newlines seen so far. */
  lineCount: number;
  /** Starts of this run: 1, plus one each time `recover()` claims it again after a restart (policy `requeue`). */
  attempts: number;
  /** The exit notification was delivered (exactly-once across restarts). */
  exitNotified: boolean;
  /** Free-form labels from the caller (tool surface, tool-call id, ...). */
  labels: Record<string, string>;
  /** Output bytes kept for this run (0/absent = no cap); output past it is counted in `cappedBytes`, not stored. */
  maxOutputBytes?: number;
  /** Output bytes the command wrote past `maxOutputBytes` (not stored, still seen by watchers). */
  cappedBytes?: number;
  /**
   * Where output was dropped by the client before it could be read: `[offset, bytes]` in absolute
   * output offsets, oldest first (at most MAX_LOST_RANGES; a later loss is merged into the last).
   */
  lostRanges?: [offset: number, bytes: number][];
  /**
   * Set when the command never started (status `failed`, cause `spawn_error`): why, so every
   * surface can tell "not found" from other start failures without parsing `error`.
   */
  startFailure?: StartFailure | null;
  /** Kernel limits the command was started under (local provider only). */
  resourceLimits?: ResourceLimits | null;
  /** The last resource sample taken while the command ran (kept after it ends); null = never measured. */
  resourceUsage?: ResourceUsage | null;
  /** Set while the command waits for input (see `InputRequired`); null or absent otherwise. */
  inputRequired?: InputRequired | null;
  /**
   * acp-process's own remarks about the run (output dropped by the client, a signal it could not
   * send, a read that failed, a restart), oldest first, the first MAX_RUN_NOTICES of them: never
   * part of the output, which holds only the command's bytes. Each is also a `notice` item.
   */
  notices?: string[];
  /** Notices past MAX_RUN_NOTICES, counted (their items remain). */
  noticesLeftOut?: number;
}

/** Most notices a run record keeps (later ones are counted in `noticesLeftOut`). */
export const MAX_RUN_NOTICES = 20;
/** Most characters of one notice kept on the record (a provider's error message can be long). */
export const MAX_NOTICE_CHARS = 1000;

/** Adds `text` to `record.notices` within MAX_RUN_NOTICES and MAX_NOTICE_CHARS. */
export function noteOn(record: RunRecord, text: string): void {
  const notices = (record.notices ??= []);
  if (notices.length >= MAX_RUN_NOTICES) {
    record.noticesLeftOut = (record.noticesLeftOut ?? 0) + 1;
    return;
  }
  notices.push(text.length > MAX_NOTICE_CHARS ? `${text.slice(0, MAX_NOTICE_CHARS - 1)}…` : text);
}

/**
 * The command is blocked reading its terminal or stdin and has printed nothing since. `proc`:
 * seen in /proc (a process of the command sleeps in a read of its input, local provider on
 * Linux); `prompt`: guessed from the output where that cannot be seen (its last line looks like a
 * prompt and nothing followed it).
 */
export interface InputRequired {
  /** When it was noticed (clock ms). */
  sinceMs: number;
  /** The last line the command printed (at most 200 characters): usually the prompt. */
  prompt: string;
  detectedBy: "proc" | "prompt";
  /** `proc`: the process that waits and how (`python3: read(0) on /dev/pts/3`). */
  how?: string;
}

/**
 * Why a run never started: `command_not_found` (ENOENT for the program), `denied` (the client's
 * authorize hook or user refused it), `spawn_failed` (anything else: EACCES, a missing cwd, a
 * client that did not answer).
 */
export type StartFailure = "command_not_found" | "denied" | "spawn_failed";

/**
 * Kernel resource limits set before the command is executed: on the whole process tree through a
 * cgroup where one can be made, and on each process as rlimits (see runs/run/cgroup-limits.ts).
 */
export interface ResourceLimits {
  /** The tree's memory (cgroup), and each process's address space (RLIMIT_AS), in bytes. */
  memoryBytes?: number;
  /** RLIMIT_CPU: CPU seconds (user + system) of each process before SIGXCPU. */
  cpuSeconds?: number;
  /** The tree's share of one core (cgroup CPU quota): over the run's timeout, at most that × timeout CPU seconds. */
  cpuCores?: number;
}

/** Separate losses a record lists; later ones are merged into the last range. */
export const MAX_LOST_RANGES = 100;

/**
 * Every byte of output the command wrote, as far as acp-process knows: the bytes kept, those the
 * client dropped before they were read (`lostBytes`) and those past `maxOutputBytes`. Absolute
 * output offsets run from 0 to this.
 */
export function totalOutputBytes(
  record: Pick<RunRecord, "outputBytes" | "lostBytes" | "cappedBytes">,
): number {
  return record.outputBytes + record.lostBytes + (record.cappedBytes ?? 0);
}

/** The absolute offset the next byte the client reports lands at (loss counted, the capped part not). */
export function streamOffset(record: Pick<RunRecord, "outputBytes" | "lostBytes">): number {
  return record.outputBytes + record.lostBytes;
}

/** `output`: the command's text; `notice`: acp-process's own remark; `event`: a watcher hit, text `{"event","match"}` as JSON. */
export type RunItemKind = "output" | "notice" | "event";

/** One piece of a run's history. `seq` is monotonic per run, starting at 0. */
export interface RunItem {
  seq: number;
  kind: RunItemKind;
  text: string;
  atMs: number;
  /** Absolute output offset of the first byte of `text`, loss counted (for `notice`, the offset at that point). */
  byteOffset: number;
}
