import type { ProcessTree } from "../terminate/process-tree.js";
import type { ExitStatus } from "../core/types.js";

/** Everything a backend needs to start a command; decided and validated by the host. */
export interface SpawnRequest {
  /** Program to execute (already resolved to a shell when the command line needs one). */
  file: string;
  args: string[];
  /**
   * Words that run the command inside a wrapper which then execs it in place (nsenter into the
   * terminal's namespaces): `[...prefix, file, ...args]` is executed, with the same pid.
   */
  prefix?: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Pipes: keep stdin open for writes (else the command reads end-of-file). */
  stdin: boolean;
  /** Run in a PTY of this size; absent: pipes. */
  pty?: { cols: number; rows: number };
  /** How long to keep reading output after the process exited (a grandchild holding the pipe). */
  exitDrainGraceMs: number;
  /** Bytes of stdin that may wait for the command to read them before a write is refused. */
  maxPendingStdinBytes: number;
  /**
   * Every chunk of output, in the order it was written (stdout and stderr are one descriptor).
   * The chunk is valid only during the call (pipes read into a reused buffer): copy what you keep.
   */
  onData: (chunk: Uint8Array) => void;
  /**
   * A remark of the backend about the command (the connection to where it ran was lost): kept
   * beside the output (`TerminalOutputSnapshot.notices`), never written into it.
   */
  onNotice?: (text: string) => void;
  /** The terminal's lifetime: aborted when it settles or is released. */
  signal: AbortSignal;
}

/**
 * What a command started, wherever it went (its own process group or not), as the launcher keeps
 * it under the command's relay: for kill and release to sweep after the process group.
 */
export type { ProcessTree };

/** A started command, whichever backend runs it. */
export interface SpawnedProcess {
  readonly pid: number;
  readonly pty: boolean;
  /** Started through the launcher: everything it started, even outside its process group. */
  readonly tree?: ProcessTree;
  /** Resolves when the process itself has exited (output may still be draining). */
  readonly leaderExited: Promise<ExitStatus>;
  /** Resolves once the process has exited and its output is drained (or the drain grace ran out). */
  readonly settled: Promise<ExitStatus>;
  /** True once `leaderExited` has resolved. */
  hasExited(): boolean;
  /** Whether `write` may be called: stdin open and not ended. */
  readonly writable: boolean;
  /** Resolves once the bytes were handed to the OS; rejects if they cannot be. */
  write(data: Uint8Array): Promise<void>;
  /**
   * Writes `data` (if any), then ends the input (pipes: closes stdin; PTY: sends the EOF
   * character ^D). The input counts as ended at once: a write made before this resolves fails.
   */
  endInput(data?: Uint8Array): Promise<void>;
  /**
   * Output keeps being read until `done` settles even if the pipes go quiet after the exit: a
   * kill holds the drain open while its grace runs, so what the group prints while it cleans up
   * is kept. Pipes only; a PTY's end is decided by node-pty.
   */
  holdDrainUntil(done: Promise<unknown>): void;
  /** PTY only. */
  resize(cols: number, rows: number): void;
}
