/**
 * The one error type acp-process throws. `code` tells callers (and tool surfaces) what kind of
 * failure it is; `message` says what failed and what to do. Timeouts and kills are run states,
 * never errors.
 */
export type ProcessErrorCode =
  | "not_found" // unknown, removed or foreign run id
  | "invalid_params" // a bad option or tool argument
  | "unsupported" // the provider cannot do this (no stdin, no PTY, no signals)
  | "not_running" // write/resize/signal to a finished run
  | "stdin_closed" // write to a run started without stdin
  | "still_running" // remove/clear of a live run without kill
  | "limit_reached" // too many runs, watchers or queued runs
  | "provider_error" // the client/host refused or failed a call
  | "store_error" // the run store file could not be opened, read or written, or holds data it cannot use
  | "store_closed" // a call on a run store after its close()
  | "store_in_use" // another store instance holds the run store file
  | "disposed" // the manager was disposed
  | "missing_dependency" // an optional peer dependency (better-sqlite3 for SqliteRunStore) is not installed or does not load
  | "output_evicted" // a byte range that is no longer kept: evicted by the spill's disk quota, or dropped by retention without a spill
  | "output_lost" // a byte range the client dropped before acp-process could read it
  | "output_not_kept" // a byte range past the run's maxOutputBytes (counted, never stored)
  // The process.* capabilities' errors, named as their specification names them:
  | "CommandNotFound" // the program does not exist (never started)
  | "SpawnFailed" // the command could not be started (EACCES, missing cwd, refused by the client)
  | "ProcessAlreadyExited" // process.kill of a run that had already ended
  | "ResourceLimitExceeded"; // the command was stopped by its cpu_limit or memory_limit

export class ProcessError extends Error {
  override readonly name = "ProcessError";

  constructor(
    readonly code: ProcessErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static notFound(runId: string): ProcessError {
    return new ProcessError(
      "not_found",
      `No run ${JSON.stringify(runId)} (it expired, was removed, or belongs to another session); list runs to see current ids`,
    );
  }

  static invalidParams(option: string, expected: string, received: unknown): ProcessError {
    return new ProcessError(
      "invalid_params",
      `Invalid ${option}: expected ${expected}, received ${safeJson(received)}`,
    );
  }

  static unsupported(what: string, providerKind: string, hint: string): ProcessError {
    return new ProcessError(
      "unsupported",
      `${what} is not available with the ${providerKind} terminal provider: ${hint}`,
    );
  }

  static notRunning(runId: string, status: string): ProcessError {
    return new ProcessError(
      "not_running",
      `Run ${runId} is ${status}, not running: read its output with read/lines, or start it again`,
    );
  }

  static disposed(): ProcessError {
    return new ProcessError(
      "disposed",
      "The process manager was disposed (its runs were killed and released): create a new ProcessManager to run commands",
    );
  }
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    // Cyclic or BigInt values: fall back to String(), good enough for a message.
    return String(value);
  }
}

// Reading what was thrown, without trusting it to be an Error: defined once, in acp-terminal.
export { errnoCodeOf, messageOf } from "acp-terminal/internal";
