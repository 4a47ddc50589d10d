import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ExitStatus, TerminalInfo } from "../host/types.js";
import type { OutputReader } from "../output/output-buffer.js";
import type { AgentTerminal } from "./agent-terminal.js";
import type { RunResult } from "./format.js";

/** What a renderer is told of a terminal when it starts (a v2 terminal's command may come later). */
export type TerminalStart = Pick<TerminalInfo, "terminalId" | "command" | "args" | "cwd" | "pty">;

/** The v2 work the agent lists as running in the background, as it last listed it. */
export interface BackgroundItem {
  type: string;
  terminalId?: string;
  toolCallId?: string;
  /** What to call it: the terminal's command or the tool call's title, when known. */
  label?: string;
}

/** What a run shows: fed by session updates and terminal host events, never by the transport. */
export interface Renderer {
  /** `protocol` "v2": the update is a v2 one as the agent sent it (JSON shows it as is). */
  sessionUpdate(update: SessionUpdate, protocol?: "v2"): void;
  /** Whether v2 updates are wanted as the agent sent them rather than in v1's shape. */
  readonly rawUpdates?: boolean;
  /**
   * A terminal started; `output` is the host's buffer of it, read when something is drawn.
   * `screen` (PTY terminals): its output as the host's emulator renders it.
   */
  terminalCreated(info: TerminalInfo, output: OutputReader, screen?: () => string): void;
  /**
   * The terminal's buffer changed since the last call: once a frame at most, or after every chunk
   * when `everyChunk` (read the buffer when drawing either way; the bytes do not come with it).
   */
  terminalOutput(terminalId: string): void;
  /** Hear of every chunk (a renderer that shows all output while its reader keeps up). */
  readonly everyChunk?: boolean;
  terminalExited(terminalId: string, exitStatus: ExitStatus): void;
  terminalReleased(terminalId: string): void;
  /** ACP v2: an agent-owned terminal appeared (rendered through its emulator, `terminal`). */
  agentTerminalCreated(terminal: AgentTerminal): void;
  /** ACP v2: a terminal's command, cwd, size or cancel capability changed after it appeared. */
  agentTerminalChanged(terminal: AgentTerminal): void;
  /** ACP v2: a snapshot replaced the terminal's output; `terminal.output` is the new buffer. */
  agentTerminalReplaced(terminal: AgentTerminal): void;
  /** ACP v2: the agent's list of background work, each time it changes. */
  background(items: BackgroundItem[]): void;
  /** A line for the user about the run itself (hints, warnings, the error that ended it). */
  notice(message: string): void;
  /** Someone else (a permission question) writes to the TTY until `resume`: draw nothing live. */
  pause(): void;
  resume(): void;
  finish(result: RunResult): void;
}

/** Where a renderer writes. `isTTY`/`columns` decide in-place updates; tests pass plain buffers. */
export interface Output {
  /**
   * Bytes are written as they are (UTF-8 already): `--json` builds its output lines as bytes, and
   * reuses their buffer once `written` says the stream let go of it. An Output must call
   * `written` (later or at once): `--json` holds further output lines until it does.
   */
  write(text: string | Uint8Array, written?: () => void): void;
  isTTY: boolean;
  columns?: number;
  /** True while the reader lags (written text still waits in memory): live output waits, finals do not. */
  readonly lagging?: boolean;
  /** Calls `listener` once when the reader has caught up. */
  onDrain?(listener: () => void): void;
}

export function outputOf(stream: NodeJS.WriteStream): Output {
  return {
    write: (text, written) => void stream.write(text, written && (() => written())),
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
