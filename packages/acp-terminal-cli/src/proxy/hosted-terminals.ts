import { TextDecoder } from "node:util";
import type { ExitStatus, OutputReader } from "acp-terminal";
import { AgentTerminal } from "../view/agent-terminal.js";
import { TerminalEvents } from "./terminal-events.js";

/** Released terminals no tool call showed, kept (their screen's text) for one that shows them later. */
const MAX_RELEASED = 256;

/** One of the proxy's own terminals, as its tool calls show it. */
interface Hosted {
  /** The host's buffer, let go once the terminal is drawn for good. */
  reader: OutputReader | undefined;
  cwd: string;
  /** Its screen through the emulator, fed from `reader` when drawn (the text dialect). */
  screen: AgentTerminal | undefined;
  /** Stream offset read into `screen`, or sent in the `_meta` dialect. */
  cursor: number;
  decoder: TextDecoder | undefined;
  exitStatus: ExitStatus | undefined;
}

/** What the proxy's tool calls need to hear of its terminals. */
export interface HostedListener {
  changed(terminalId: string): void;
  ended(terminalId: string): void;
  /** A tool call shows it (its text is kept until the tool call is forgotten). */
  isShown(terminalId: string): boolean;
}

/**
 * The proxy's own terminals as its tool calls draw them: the host's buffer of each (`events`,
 * for `followHost`), read only when drawn: into a screen through the emulator (`screenOf`, the text
 * dialect), or as the bytes the editor has not had yet (`takeOutput`, the `_meta` dialect). When
 * one ends while a tool call shows it, or is released, its screen keeps its text and the host's
 * buffer is let go; a released one no tool call showed yet is kept that way (a tool call may show
 * it later: a client keeps showing a terminal after release), up to MAX_RELEASED.
 */
export class HostedTerminals {
  readonly #hosted = new Map<string, Hosted>();
  /** Released terminals no tool call showed yet, oldest first. */
  readonly #released = new Set<string>();
  readonly events: TerminalEvents;

  constructor(
    private readonly freezesScreens: boolean,
    private readonly listener: HostedListener,
  ) {
    this.events = new TerminalEvents({
      hostedCreated: (info, output) =>
        this.#hosted.set(info.terminalId, {
          reader: output,
          cwd: info.cwd,
          screen: undefined,
          cursor: output.droppedBytes,
          decoder: undefined,
          exitStatus: undefined,
        }),
      changed: (terminalId) => listener.changed(terminalId),
      exited: (terminalId, exitStatus) => {
        const hosted = this.#hosted.get(terminalId);
        if (hosted !== undefined) {
          hosted.exitStatus = exitStatus;
          listener.ended(terminalId);
          if (listener.isShown(terminalId)) {
            this.#drawnForGood(terminalId, hosted);
          }
        }
      },
      released: (terminalId) => {
        const hosted = this.#hosted.get(terminalId);
        if (hosted !== undefined) {
          this.#drawnForGood(terminalId, hosted);
          this.#keepReleased(terminalId);
        }
      },
    });
  }

  has(terminalId: string): boolean {
    return this.#hosted.has(terminalId);
  }

  cwd(terminalId: string): string | undefined {
    return this.#hosted.get(terminalId)?.cwd;
  }

  exitStatus(terminalId: string): ExitStatus | undefined {
    return this.#hosted.get(terminalId)?.exitStatus;
  }

  /** Its screen's text as the emulator renders it, fed with what its buffer got since last drawn. */
  screenOf(terminalId: string): { screen: string; exitStatus: ExitStatus | undefined } {
    const hosted = this.#hosted.get(terminalId);
    return hosted === undefined
      ? { screen: "", exitStatus: undefined }
      : { screen: this.#screen(terminalId, hosted).text(), exitStatus: hosted.exitStatus };
  }

  /** The `_meta` dialect: what it printed since last asked, as text ("" once drawn for good). */
  takeOutput(terminalId: string): string {
    const hosted = this.#hosted.get(terminalId);
    const reader = hosted?.reader;
    if (hosted === undefined || reader === undefined) {
      return "";
    }
    const { bytes, fromByte } = reader.bytesSince(hosted.cursor);
    hosted.cursor = fromByte + bytes.byteLength;
    hosted.decoder ??= new TextDecoder();
    return hosted.decoder.decode(bytes, { stream: true });
  }

  #screen(terminalId: string, hosted: Hosted): AgentTerminal {
    hosted.screen ??= new AgentTerminal(terminalId, undefined, "v1");
    const reader = hosted.reader;
    if (reader !== undefined && !hosted.screen.frozen) {
      const { bytes, fromByte } = reader.bytesSince(hosted.cursor);
      hosted.screen.append(bytes);
      hosted.cursor = fromByte + bytes.byteLength;
    }
    return hosted.screen;
  }

  /** It ended (shown in a tool call) or was released: its screen keeps its text, its buffer goes. */
  #drawnForGood(terminalId: string, hosted: Hosted): void {
    if (hosted.reader === undefined) {
      return;
    }
    if (this.freezesScreens) {
      this.#screen(terminalId, hosted).freeze();
    }
    hosted.reader = undefined;
  }

  #keepReleased(terminalId: string): void {
    if (this.listener.isShown(terminalId)) {
      return;
    }
    this.#released.delete(terminalId);
    this.#released.add(terminalId);
    if (this.#released.size > MAX_RELEASED) {
      const oldest = this.#released.values().next();
      if (oldest.done !== true) {
        this.#released.delete(oldest.value);
        if (!this.listener.isShown(oldest.value)) {
          this.#hosted.delete(oldest.value);
        }
      }
    }
  }
}
