import type { ExitStatus, OutputReader, TerminalInfo } from "acp-terminal";
import type { AgentTerminal } from "../view/agent-terminal.js";
import type { PlanItem, ProtocolName, Renderer, ToolCallShown } from "../view/renderer.js";

/** What the proxy hears of terminals: the view events it uses, nothing else. */
export interface TerminalListener {
  /** One of the proxy's own terminals started; `output` is the host's buffer of it. */
  hostedCreated?(info: TerminalInfo, output: OutputReader): void;
  /** A terminal the agent reports appeared. */
  reportedCreated?(terminal: AgentTerminal): void;
  /** Its output (or, for a reported one, a snapshot of it) changed. */
  changed(terminalId: string): void;
  exited(terminalId: string, exitStatus: ExitStatus): void;
  /** One of the proxy's own terminals was released. */
  released?(terminalId: string): void;
}

/**
 * The view events (see view/renderer.ts) as the proxy takes them: the readers that turn an agent's
 * reports into view events (`MetaTerminals`) and the hosted terminals' ledger (`followHost`) speak
 * to a `Renderer`; the proxy shows only terminals, so every other event is let go here, and the
 * terminal events go to a `TerminalListener`.
 */
export class TerminalEvents implements Renderer {
  constructor(private readonly listener: TerminalListener) {}

  terminalCreated(info: TerminalInfo, output: OutputReader): void {
    this.listener.hostedCreated?.(info, output);
  }

  agentTerminalCreated(terminal: AgentTerminal): void {
    this.listener.reportedCreated?.(terminal);
  }

  /**
   * A chunk of one of the proxy's own terminals: only that it changed (the proxy reads the host's
   * buffer when it draws, at most every 100 ms).
   */
  terminalBytes(terminalId: string): void {
    this.listener.changed(terminalId);
  }

  terminalOutput(terminalId: string): void {
    this.listener.changed(terminalId);
  }

  agentTerminalReplaced(terminal: AgentTerminal): void {
    this.listener.changed(terminal.terminalId);
  }

  terminalExited(terminalId: string, exitStatus: ExitStatus): void {
    this.listener.exited(terminalId, exitStatus);
  }

  terminalReleased(terminalId: string): void {
    this.listener.released?.(terminalId);
  }

  // What a conversation shows besides terminals: the editor gets the agent's own messages for it
  // (a subclass that speaks for the agent shows them: see v2-bridge.ts).
  rawUpdate(_update: unknown, _protocol: ProtocolName): void {}
  messageText(_text: string): void {}
  thoughtText(_text: string): void {}
  plan(_items: PlanItem[]): void {}
  toolCallStarted(_call: ToolCallShown & { title: string }): void {}
  toolCallUpdated(_call: ToolCallShown): void {}
  agentTerminalChanged(): void {}
  background(): void {}
  notice(): void {}
  pause(): void {}
  resume(): void {}
  finish(): void {}
}
