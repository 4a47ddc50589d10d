import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ExitStatus, TerminalInfo } from "../host/types.js";
import type { RunResult } from "./format.js";

/** What a run shows: fed by session updates and terminal host events, never by the transport. */
export interface Renderer {
  sessionUpdate(update: SessionUpdate): void;
  terminalCreated(info: TerminalInfo): void;
  terminalOutput(terminalId: string, data: Uint8Array): void;
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
  };
}
