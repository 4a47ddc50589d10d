import type { ExitStatus, OutputReader } from "acp-terminal";
import type { AgentTerminal } from "../view/agent-terminal.js";
import { HostScreen } from "./host-screen.js";
import { OutputLines } from "./output-lines.js";
import { ScreenTail } from "./screen-tail.js";
import type { TerminalView } from "./tool-call-lines.js";

/**
 * The terminals the text renderer follows, each as it is shown. One of the CLI's own pipe
 * terminals: the display's own view of its output (`OutputLines`, fed every chunk), whose first
 * lines are streamed when piped, independent of the host's buffer (sized for the agent). A PTY
 * terminal of the CLI's: what its screen shows (the host's emulator), which can change until the
 * exit: drawn live, printed whole when piped, and kept as text at the exit. An agent's terminal:
 * its screen's lines, through its own emulator, printed whole when piped.
 */
export class TerminalViews {
  readonly #views = new Map<string, TerminalView>();
  /** The CLI's PTY terminals drawn from the host's emulator, until their exit keeps the text. */
  readonly #screens = new Map<string, HostScreen>();

  get(terminalId: string): TerminalView | undefined {
    return this.#views.get(terminalId);
  }

  /** One of the CLI's terminals; a pipe terminal's view keeps its first `headLines` lines. */
  hosted(terminalId: string, output: OutputReader, headLines: number, render?: () => string): void {
    if (render !== undefined) {
      const screen = new HostScreen(render, output);
      this.#screens.set(terminalId, screen);
      this.#views.set(terminalId, {
        tail: new ScreenTail(screen),
        lines: undefined,
        released: false,
        streamed: 0,
      });
      return;
    }
    const lines = new OutputLines(headLines);
    this.#views.set(terminalId, { tail: lines, lines, released: false, streamed: 0 });
  }

  /** A chunk of one of the CLI's pipe terminals (a PTY's screen reads the host's buffer). */
  bytes(terminalId: string, data: Uint8Array): TerminalView | undefined {
    const view = this.#views.get(terminalId);
    view?.lines?.append(data);
    return view;
  }

  agent(terminal: AgentTerminal): void {
    this.#views.set(terminal.terminalId, {
      tail: new ScreenTail(terminal),
      lines: undefined,
      released: false,
      streamed: 0,
    });
  }

  /** What it runs (a command reported late replaces none), for lines about it. */
  label(terminalId: string, label: string | undefined): void {
    const view = this.#views.get(terminalId);
    if (view !== undefined && label !== undefined && label !== "") {
      view.label = label.length > 200 ? `${label.slice(0, 199)}…` : label;
    }
  }

  /** It exited: nothing more is written to it (a PTY's screen keeps its text). */
  exited(terminalId: string, exitStatus: ExitStatus): TerminalView | undefined {
    const view = this.#views.get(terminalId);
    if (view === undefined) {
      return undefined;
    }
    view.exitStatus = exitStatus;
    this.#screens.get(terminalId)?.freeze();
    this.#screens.delete(terminalId);
    return view;
  }

  /** It was released and its last lines shown: keep only what its tail shows. */
  freeze(terminalId: string): void {
    this.#views.get(terminalId)?.tail.freeze();
    this.#screens.delete(terminalId);
  }
}
