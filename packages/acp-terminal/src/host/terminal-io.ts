import { parseSignalName } from "../terminate/signals.js";
import { TerminalError } from "../core/errors.js";
import type { Terminal } from "./terminal.js";
import type { WriteOptions } from "./types.js";
import { validatePtySize } from "./validate.js";

/** Input, resize and signals of a running terminal: the host's extension operations. */

function toBytes(data: string | Uint8Array): Uint8Array {
  if (typeof data === "string") {
    return Buffer.from(data, "utf8");
  }
  if (data instanceof Uint8Array) {
    return Uint8Array.prototype.slice.call(data);
  }
  throw TerminalError.invalidParams("data", "a string or Uint8Array", typeof data);
}

function assertRunning(terminal: Terminal): void {
  // The leader's exit comes before the drained exitStatus, so this covers both.
  if (terminal.process.hasExited()) {
    throw new TerminalError(
      "exited",
      `Terminal ${terminal.id} has exited; it takes no more input, signals or resizes. Read its output, or release it`,
      { terminalId: terminal.id },
    );
  }
}

/** Writes to stdin; with `eof` the input counts as ended at once, so a write racing this one fails. */
export async function writeInput(
  terminal: Terminal,
  data: string | Uint8Array,
  options?: WriteOptions,
): Promise<void> {
  const bytes = toBytes(data);
  const eof = options?.eof ?? false;
  if (typeof eof !== "boolean") {
    throw TerminalError.invalidParams("options.eof", "a boolean", eof);
  }
  // The backend says why input is refused: no stdin, ended (eof), or the command exited.
  if (eof) {
    await terminal.process.endInput(bytes);
  } else {
    await terminal.process.write(bytes);
  }
}

export function resizePty(terminal: Terminal, cols: number, rows: number): void {
  const size = validatePtySize(cols, rows);
  if (!terminal.process.pty) {
    throw new TerminalError(
      "not_pty",
      `Terminal ${terminal.id} runs without a PTY; only PTY terminals can be resized`,
      {
        terminalId: terminal.id,
      },
    );
  }
  assertRunning(terminal);
  terminal.process.resize(size.cols, size.rows);
  terminal.resizeScreen(size.cols, size.rows);
}

export function signalTerminal(terminal: Terminal, signal: string): void {
  const name = parseSignalName(signal);
  assertRunning(terminal);
  terminal.sendSignal(name);
}
