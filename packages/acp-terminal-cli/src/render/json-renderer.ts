import type { ExitStatus, TerminalInfo } from "acp-terminal";
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
import { JsonTerminalEvents } from "./json-terminal-events.js";
import type { Output } from "./output.js";

/**
 * `--json`: one JSON object per line on stdout and nothing else there. Terminal output is written
 * as it arrives while stdout keeps up; while the reader lags it waits in a bounded buffer of the
 * CLI's own, and what went by unwritten is said exactly (see JsonTerminalEvents). Every other event
 * (session updates, exits, releases, the result) is always written. Notices go to stderr.
 *
 * Session updates are written as the agent sent them (`rawUpdate`), with the protocol version
 * named when it is not v1 (the default, and the only one before v2); the events that tell their
 * meaning (messages, tool calls, thoughts, plans) are for people and not written again.
 */
export class JsonRenderer implements Renderer {
  readonly wantsRawUpdates = true;
  private readonly terminals: JsonTerminalEvents;
  /** The line that ends a failed run was written to stderr already. */
  private failedShown = false;

  constructor(
    private readonly out: Output,
    private readonly err: Output,
    options: { verbose?: boolean } = {},
  ) {
    this.terminals = new JsonTerminalEvents(out, options.verbose === true);
  }

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

  terminalCreated(info: TerminalInfo): void {
    this.terminals.terminalCreated(info);
  }

  agentTerminalCreated(terminal: AgentTerminal): void {
    this.terminals.agentTerminalCreated(terminal);
  }

  agentTerminalChanged(terminal: AgentTerminal): void {
    this.terminals.agentTerminalChanged(terminal);
  }

  agentTerminalReplaced(terminal: AgentTerminal): void {
    this.terminals.agentTerminalReplaced(terminal);
  }

  background(items: BackgroundItem[], protocol: ProtocolName): void {
    this.emit({ type: "background", protocol, work: items });
  }
  terminalBytes(terminalId: string, data: Uint8Array): void {
    this.terminals.hostedBytes(terminalId, data);
  }

  terminalOutput(terminalId: string): void {
    this.terminals.terminalOutput(terminalId);
  }

  terminalExited(terminalId: string, exitStatus: ExitStatus): void {
    this.terminals.terminalExited(terminalId, exitStatus);
  }

  terminalReleased(terminalId: string): void {
    this.terminals.terminalReleased(terminalId);
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

  private emit(value: Record<string, unknown>): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }
}
