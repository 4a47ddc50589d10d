import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ExitStatus, TerminalInfo } from "../host/types.js";
import type { OutputReader } from "../output/output-buffer.js";
import type { RunResult } from "./format.js";

/** What a run shows: fed by session updates and terminal host events, never by the transport. */
export interface Renderer {
  sessionUpdate(update: SessionUpdate): void;
  /** A terminal started; `output` is the host's buffer of it, read when something is drawn. */
  terminalCreated(info: TerminalInfo, output: OutputReader): void;
  /**
   * The terminal's buffer changed since the last call: once a frame at most, or after every chunk
   * when `everyChunk` (read the buffer when drawing either way; the bytes do not come with it).
   */
  terminalOutput(terminalId: string): void;
  /** Hear of every chunk (a renderer that shows all output while its reader keeps up). */
  readonly everyChunk?: boolean;
  terminalExited(terminalId: string, exitStatus: ExitStatus): void;
  terminalReleased(terminalId: string): void;
  /** A line for the user about the run itself (hints, warnings, the error that ended it). */
  notice(message: string): void;
  /** Someone else (a permission question) writes to the TTY until `resume`: draw nothing live. */
  pause(): void;
  resume(): void;
  finish(result: RunResult): void;
}

/** Where a renderer writes. `isTTY`/`columns` decide in-place updates; tests pass plain buffers. */
export interface Output {
  write(text: string): void;
  isTTY: boolean;
  columns?: number;
  /** True while the reader lags (written text still waits in memory): live output waits, finals do not. */
  readonly lagging?: boolean;
  /** Calls `listener` once when the reader has caught up. */
  onDrain?(listener: () => void): void;
}

export function outputOf(stream: NodeJS.WriteStream): Output {
  return {
    write: (text) => void stream.write(text),
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns;
    },
    get lagging() {
      return stream.writableNeedDrain;
    },
    onDrain: (listener) => void stream.once("drain", listener),
  };
}
