import { previewValue } from "./preview.js";
import { errnoCodeOf } from "./thrown.js";

/**
 * The one error type the host throws. `code` says what kind of failure it is, so the ACP binding
 * can map it to a JSON-RPC code without parsing messages; `message` says what failed and what to do.
 */
export type TerminalErrorCode =
  | "not_found" // unknown, released or foreign terminal id → -32002
  | "invalid_params" // a bad field → -32602
  | "spawn_failed" // ENOENT, EACCES, missing cwd → -32603 with a clear message
  | "limit_reached" // too many live terminals → -32603
  | "denied" // the authorize hook said no → -32603
  | "stdin_closed" // write to a terminal without open stdin → -32603
  | "not_pty" // resize of a pipe terminal → -32603
  | "exited" // write/signal/resize after the command exited → -32603
  | "signal_failed" // the OS refused a signal (EPERM: a member runs as another user) → -32603
  | "disposed"; // the host was disposed while waiting → -32603

/** The longest rendering of a received value that an error message quotes. */
const MAX_RECEIVED_CHARS = 200;

/** A received value as JSON, cut to MAX_RECEIVED_CHARS with its full length named (bounded for any size or depth). */
export function describeReceived(received: unknown): string {
  return previewValue(received, MAX_RECEIVED_CHARS);
}

export class TerminalError extends Error {
  override readonly name = "TerminalError";

  constructor(
    readonly code: TerminalErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static notFound(terminalId: string): TerminalError {
    return new TerminalError(
      "not_found",
      `Terminal not found: ${terminalId} (it was released, never existed, or belongs to another session)`,
      { terminalId },
    );
  }

  static invalidParams(field: string, expected: string, received: unknown): TerminalError {
    return new TerminalError(
      "invalid_params",
      `Invalid ${field}: expected ${expected}, received ${describeReceived(received)}`,
      { field },
    );
  }

  /** The OS refused to deliver `signal` to the process group `pid` (EPERM, or another failure). */
  static signalFailed(pid: number, signal: string, cause: unknown): TerminalError {
    const code = errnoCodeOf(cause) ?? String(cause);
    const message =
      code === "EPERM"
        ? `Not permitted to send ${signal} to process group ${pid} (EPERM): a process in it runs as another user; ` +
          "it may still be running. Stop it as that user, or release the terminal"
        : `Sending ${signal} to process group ${pid} failed (${code})`;
    return new TerminalError("signal_failed", message, { pid, signal, code }, { cause });
  }
}
