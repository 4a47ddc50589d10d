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
  | "disposed"; // the host was disposed while waiting → -32603

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
      `Invalid ${field}: expected ${expected}, received ${JSON.stringify(received)}`,
      { field },
    );
  }
}
