import { write as fsWrite } from "node:fs";
import type { Writable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { TerminalError } from "../core/errors.js";
import { errnoCodeOf } from "../core/thrown.js";

/** Retry pace for a PTY whose input queue is full (EAGAIN): from 5 ms, doubling to 100 ms. */
const RETRY_MIN_MS = 5;
const RETRY_MAX_MS = 100;
/** ^D, the terminal's end-of-file character (VEOF) in its default settings. */
const EOF_CHARACTER = Uint8Array.of(0x04);

function pendingLimit(pendingBytes: number, maxPendingStdinBytes: number): TerminalError {
  return new TerminalError(
    "limit_reached",
    `stdin has ${pendingBytes} bytes the command has not read yet (limit ${maxPendingStdinBytes} bytes): ` +
      "the command is not reading its input; wait for it to read, or end it",
    { pendingBytes, maxPendingStdinBytes },
  );
}

/** The error for a write that would leave more than `max` bytes pending; a lone large write may pass. */
function overPendingLimit(
  pendingBytes: number,
  incoming: number,
  max: number,
): TerminalError | undefined {
  return pendingBytes > 0 && pendingBytes + incoming > max
    ? pendingLimit(pendingBytes, max)
    : undefined;
}

export function inputClosed(reason: string): TerminalError {
  return new TerminalError("stdin_closed", `stdin is closed: ${reason}`);
}

const exitedError = (): TerminalError =>
  new TerminalError(
    "exited",
    "The command has exited; it takes no more input. Read its output, or release the terminal",
  );

/** stdin of a piped child: writes resolve when flushed to the OS, bounded by `maxPendingBytes`. */
export class PipeInput {
  #closedBy: "eof" | "exit" | undefined;
  #failure: Error | undefined;

  constructor(
    private readonly stream: Writable,
    private readonly maxPendingBytes: number,
  ) {
    // EPIPE when the command closes its stdin or exits; the failed write reports it.
    stream.on("error", (error) => {
      this.#failure = error;
    });
  }

  get writable(): boolean {
    return this.#closedBy === undefined && this.#failure === undefined;
  }

  write(data: Uint8Array): Promise<void> {
    if (!this.writable) {
      return Promise.reject(this.#closedError());
    }
    const refused = overPendingLimit(
      this.stream.writableLength,
      data.byteLength,
      this.maxPendingBytes,
    );
    if (refused) {
      return Promise.reject(refused);
    }
    return new Promise((resolve, reject) => {
      this.stream.write(data, (error) => (error ? reject(this.#closedError(error)) : resolve()));
    });
  }

  /** Writes `data`, then closes stdin; a write made after this call fails at once. */
  endInput(data?: Uint8Array): Promise<void> {
    if (!this.writable) {
      return Promise.reject(this.#closedError());
    }
    const bytes = data?.byteLength ? data : undefined;
    const refused =
      bytes && overPendingLimit(this.stream.writableLength, bytes.byteLength, this.maxPendingBytes);
    if (refused) {
      return Promise.reject(refused);
    }
    this.#closedBy = "eof";
    const written = bytes
      ? new Promise<void>((resolve, reject) => {
          this.stream.write(bytes, (error) =>
            error ? reject(this.#closedError(error)) : resolve(),
          );
        })
      : Promise.resolve();
    // Resolves on 'finish', or on an error (EPIPE): either way the input is closed. Node calls
    // end's callback neither when the stream is already closed nor when it is destroyed before
    // finishing (as a child's stdin is once it exits), so 'close' settles it too.
    const ended = new Promise<void>((resolve) => {
      if (this.stream.closed) {
        return resolve();
      }
      this.stream.once("close", () => resolve());
      this.stream.end(() => resolve());
    });
    return Promise.all([written, ended]).then(() => undefined);
  }

  /** The process has settled: unwritten input is dropped (its writes fail with "exited"). */
  close(): void {
    this.#closedBy ??= "exit";
    this.stream.destroy();
  }

  #closedError(cause?: Error | null): TerminalError {
    if (this.#closedBy === "exit") {
      return exitedError();
    }
    const failure = cause ?? this.#failure;
    if (failure) {
      const code = errnoCodeOf(failure) ?? failure.message;
      return new TerminalError(
        "stdin_closed",
        `stdin is closed: the command closed its input or exited (${code})`,
        undefined,
        {
          cause: failure,
        },
      );
    }
    return inputClosed("it was ended (eof)");
  }
}

interface PendingWrite {
  bytes: Uint8Array;
  offset: number;
  resolve: () => void;
  reject: (error: TerminalError) => void;
}

/**
 * Input of a PTY, written straight to its non-blocking master fd: a write resolves once the
 * kernel took every byte; while the terminal's input queue is full (EAGAIN) it retries with a
 * backoff, holding at most `maxPendingBytes` bytes.
 */
export class PtyInput {
  readonly #queue: PendingWrite[] = [];
  /** A write of the queue's first task is with the kernel. */
  #writing = false;
  #pendingBytes = 0;
  #ended = false;
  #closed = false;

  constructor(
    private readonly fd: number,
    private readonly maxPendingBytes: number,
    private readonly signal: AbortSignal,
  ) {}

  get writable(): boolean {
    return !this.#ended && !this.#closed;
  }

  write(data: Uint8Array): Promise<void> {
    if (this.#closed) {
      return Promise.reject(exitedError());
    }
    if (this.#ended) {
      return Promise.reject(inputClosed("it was ended (eof)"));
    }
    const refused = overPendingLimit(this.#pendingBytes, data.byteLength, this.maxPendingBytes);
    if (refused) {
      return Promise.reject(refused);
    }
    if (data.byteLength === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ bytes: data, offset: 0, resolve, reject });
      this.#pendingBytes += data.byteLength;
      if (this.#queue.length === 1) {
        this.#pump(RETRY_MIN_MS);
      }
    });
  }

  /**
   * Writes `data`, then ^D (VEOF): a command reading a line at its start sees end-of-file. The
   * input counts as ended at once: a write made after this call fails.
   */
  endInput(data?: Uint8Array): Promise<void> {
    const bytes = data?.byteLength ? Buffer.concat([data, EOF_CHARACTER]) : EOF_CHARACTER;
    const written = this.write(bytes);
    this.#ended = true;
    return written;
  }

  /**
   * The process has settled: pending writes fail with "exited", but for one the kernel is taking
   * now, which its result settles (the command may have read it and exited since).
   */
  close(): void {
    this.#closed = true;
    for (const task of this.#queue.splice(this.#writing ? 1 : 0)) {
      task.reject(exitedError());
    }
    this.#pendingBytes = 0;
  }

  #pump(retryMs: number): void {
    const task = this.#queue[0];
    if (!task || this.#closed) {
      return;
    }
    this.#writing = true;
    fsWrite(
      this.fd,
      task.bytes,
      task.offset,
      task.bytes.byteLength - task.offset,
      null,
      (error, written) => {
        this.#writing = false;
        if (this.#closed) {
          this.#queue.shift();
          if (!error && task.offset + written >= task.bytes.byteLength) {
            task.resolve();
          } else {
            task.reject(exitedError());
          }
          return;
        }
        if (error?.code === "EAGAIN") {
          delay(retryMs, undefined, { signal: this.signal }).then(
            () => this.#pump(Math.min(retryMs * 2, RETRY_MAX_MS)),
            () => this.close(), // aborted: the terminal settled or was released
          );
          return;
        }
        if (error) {
          this.#queue.shift();
          task.reject(
            inputClosed(`writing to the terminal failed (${error.code ?? error.message})`),
          );
          this.close();
          return;
        }
        task.offset += written;
        this.#pendingBytes -= written;
        if (task.offset >= task.bytes.byteLength) {
          this.#queue.shift();
          task.resolve();
        }
        this.#pump(RETRY_MIN_MS);
      },
    );
  }
}
