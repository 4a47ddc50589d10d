// Over 300 lines: one class, one JSON line per view event (most a few lines each), and the cursor
// that reads terminals' output by bounded events.
import { TextDecoder } from "node:util";
import type { ExitStatus, TerminalInfo } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import type { AgentTerminal } from "../view/agent-terminal.js";
import type {
  BackgroundItem,
  InitializeShown,
  PermissionShown,
  ProtocolName,
  Renderer,
  RunResult,
  TurnShown,
} from "../view/renderer.js";
import type { Output } from "./output.js";

/** Bytes of terminal output one `output` event carries at most. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** A terminal that exits while the reader lags: the newest bytes its last `output` event carries. */
export const LAGGING_FINAL_BYTES = 4 * 1024;

interface FollowedTerminal {
  output: OutputReader;
  /** Stream offset up to which output was emitted (or skipped). */
  cursor: number;
  /** An agent's terminal: a snapshot replaced the output; the next `output` event says so (`replace: true`). */
  replace?: boolean;
  /** An agent's terminal, for its screen when it exits. */
  agent?: AgentTerminal;
}

/**
 * `--json`: one JSON object per line on stdout and nothing else there. Terminal output is read
 * from the host's buffer by a cursor per terminal, in whole characters, as it arrives while
 * stdout keeps up:
 * while the reader lags, output waits in that buffer, which keeps only its newest bytes, and what
 * went by unread is reported as `skippedBytes` on the next `output` event. Every other event
 * (session updates, exits, releases, the result) is always written. Notices go to stderr.
 *
 * Session updates are written as the agent sent them (`rawUpdate`), with the protocol version
 * named when it is not v1 (the default, and the only one before v2); the events that tell their
 * meaning (messages, tool calls, thoughts, plans) are for people and not written again.
 */
export class JsonRenderer implements Renderer {
  /** Every byte is shown while stdout keeps up: a look once a frame could miss what the buffer dropped. */
  readonly everyChunk = true;
  readonly wantsRawUpdates = true;
  private readonly terminals = new Map<string, FollowedTerminal>();
  private readonly pending = new Set<string>();
  private readonly decoder = new TextDecoder();
  private waitingForDrain = false;
  /** The line that ends a failed run was written to stderr already. */
  private failedShown = false;

  constructor(
    private readonly out: Output,
    private readonly err: Output,
  ) {}

  rawUpdate(update: unknown, protocol: ProtocolName): void {
    this.emit({ type: "session_update", ...(protocol === "v1" ? {} : { protocol }), update });
  }

  messageText(): void {
    // Written as the session update that carried it.
  }

  thoughtText(): void {
    // Written as the session update that carried it.
  }

  plan(): void {
    // Written as the session update that carried it.
  }

  toolCallStarted(): void {
    // Written as the session update that carried it.
  }

  toolCallUpdated(): void {
    // Written as the session update that carried it.
  }

  terminalCreated(info: TerminalInfo, output: OutputReader): void {
    this.terminals.set(info.terminalId, { output, cursor: 0 });
    this.emit({
      type: "terminal",
      event: "create",
      terminalId: info.terminalId,
      command: info.command,
      args: info.args,
      cwd: info.cwd,
      pty: info.pty,
    });
  }

  agentTerminalCreated(terminal: AgentTerminal): void {
    this.terminals.set(terminal.terminalId, {
      output: terminal.output,
      cursor: 0,
      agent: terminal,
    });
    this.emit({ type: "terminal", event: "create", ...agentTerminalFields(terminal) });
  }

  agentTerminalChanged(terminal: AgentTerminal): void {
    this.emit({ type: "terminal", event: "update", ...agentTerminalFields(terminal) });
  }

  agentTerminalReplaced(terminal: AgentTerminal): void {
    const term = this.terminals.get(terminal.terminalId);
    if (term === undefined) {
      return;
    }
    term.output = terminal.output;
    term.cursor = 0;
    term.replace = true;
    this.terminalOutput(terminal.terminalId);
  }

  background(items: BackgroundItem[], protocol: ProtocolName): void {
    this.emit({ type: "background", protocol, work: items });
  }

  terminalOutput(terminalId: string): void {
    this.pending.add(terminalId);
    // At once, while the chunk is still in the buffer: by the next turn more may have pushed it out.
    if (!this.waitingForDrain) {
      this.writePending();
    }
  }

  terminalExited(terminalId: string, exitStatus: ExitStatus): void {
    const term = this.terminals.get(terminalId);
    if (term !== undefined) {
      this.pending.delete(terminalId);
      // Output before its exit, always; while the reader lags, only the newest bytes of it.
      const since =
        this.out.lagging === true
          ? Math.max(term.cursor, term.output.totalBytes - LAGGING_FINAL_BYTES)
          : term.cursor;
      if (this.emitOutput(terminalId, term, since)) {
        while (this.emitOutput(terminalId, term)) {
          // until the cursor is at the end
        }
      }
    }
    const screen = term?.agent === undefined ? {} : screenFields(term.agent);
    this.emit({ type: "terminal", event: "exit", terminalId, exitStatus, ...screen });
    // An agent's terminal is not released: after its exit nothing more of it is shown.
    if (term?.agent !== undefined) {
      this.terminals.delete(terminalId);
    }
  }

  terminalReleased(terminalId: string): void {
    this.pending.delete(terminalId);
    this.terminals.delete(terminalId);
    this.emit({ type: "terminal", event: "release", terminalId });
  }

  notice(message: string): void {
    this.err.write(`${message}\n`);
  }

  /** The agent's `initialize` answer: who it is, what it can do, how to log in. */
  initialized(intro: InitializeShown): void {
    this.emit({
      type: "initialize",
      protocol: intro.protocol,
      dialect: intro.dialect,
      protocolVersion: intro.protocolVersion,
      agentInfo: intro.agentInfo,
      agentCapabilities: intro.capabilities,
      authMethods: intro.authMethods,
    });
  }

  sessionStarted(session: { sessionId: string; how: string }): void {
    this.emit({ type: "session", sessionId: session.sessionId, how: session.how });
  }

  turnStarted(prompt: string): void {
    this.emit({ type: "turn", event: "start", prompt });
  }

  turnEnded(turn: TurnShown): void {
    this.emit({
      type: "turn",
      event: "end",
      stopReason: turn.stopReason ?? null,
      ...(turn.error === undefined ? {} : { error: turn.error }),
      runningTerminals: turn.running,
    });
  }

  /** A permission request and the answer the user's policy gave. */
  permission(asked: PermissionShown): void {
    this.emit({ type: "permission", ...asked });
  }

  failed(error: string): void {
    this.failedShown = true;
    this.err.write(`${error}\n`);
  }

  pause(): void {
    // Nothing is drawn in place in JSON mode.
  }

  resume(): void {
    // Nothing is drawn in place in JSON mode.
  }

  finish(result: RunResult): void {
    if (result.error !== undefined && !this.failedShown) {
      this.err.write(`${result.error}\n`);
    }
    this.emit({
      type: "result",
      stopReason: result.stopReason ?? null,
      exitCode: result.exitCode,
      ...(result.error === undefined ? {} : { error: result.error }),
      elapsedMs: Math.round(result.elapsedMs),
      terminals: result.terminals,
    });
  }

  private writePending(): void {
    for (const terminalId of this.pending) {
      const term = this.terminals.get(terminalId);
      if (term === undefined) {
        this.pending.delete(terminalId);
        continue;
      }
      while (!this.lagging() && this.emitOutput(terminalId, term)) {
        // one bounded event at a time, checking the reader between them
      }
      if (this.lagging()) {
        return this.waitForDrain();
      }
      this.pending.delete(terminalId);
    }
  }

  private lagging(): boolean {
    return this.out.lagging === true && this.out.onDrain !== undefined;
  }

  private waitForDrain(): void {
    if (this.waitingForDrain) {
      return;
    }
    this.waitingForDrain = true;
    this.out.onDrain!(() => {
      this.waitingForDrain = false;
      this.writePending();
    });
  }

  /** Emits the next event's worth of a terminal's output; false when there was none. */
  private emitOutput(terminalId: string, term: FollowedTerminal, since = term.cursor): boolean {
    const { bytes, fromByte } = term.output.viewSince(since, MAX_EVENT_BYTES);
    const skippedBytes = fromByte - term.cursor;
    term.cursor = fromByte + bytes.byteLength;
    const replace = term.replace === true;
    if (bytes.byteLength === 0 && skippedBytes === 0 && !replace) {
      return false;
    }
    term.replace = false;
    const output = this.decoder.decode(bytes);
    this.emit({
      type: "terminal",
      event: "output",
      terminalId,
      output,
      ...(skippedBytes > 0 ? { skippedBytes } : {}),
      ...(replace ? { replace: true } : {}),
    });
    return bytes.byteLength > 0;
  }

  private emit(value: Record<string, unknown>): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }
}

/**
 * An agent's terminal's `create`/`update` fields: those of the CLI's terminals (`args` empty:
 * `command` is the whole line), the protocol that reports it, and its size and cancel capability.
 */
function agentTerminalFields(terminal: AgentTerminal): Record<string, unknown> {
  return {
    terminalId: terminal.terminalId,
    command: terminal.command ?? null,
    args: [],
    cwd: terminal.cwd ?? null,
    protocol: terminal.protocol,
    size: terminal.size,
    cancellable: terminal.cancellable,
  };
}

/** What an agent's terminal's screen shows, at most MAX_EVENT_BYTES of its newest text. */
function screenFields(terminal: AgentTerminal): Record<string, unknown> {
  const text = terminal.text();
  const bytes = Buffer.from(text);
  const cut = bytes.byteLength > MAX_EVENT_BYTES;
  return {
    screen: cut
      ? new TextDecoder().decode(bytes.subarray(bytes.byteLength - MAX_EVENT_BYTES))
      : text,
    ...(cut ? { screenCut: true } : {}),
    size: terminal.size,
  };
}
