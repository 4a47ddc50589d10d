import type { ExitStatus } from "acp-terminal";
import type { TerminalLimits } from "../command/terminal-limits.js";
import { AgentTerminal, clampSize } from "../view/agent-terminal.js";
import type { ProtocolName, Renderer, TerminalRecord } from "../view/renderer.js";

/** Terminal ids remembered as ignored (for one notice each): the oldest are forgotten beyond this. */
const MAX_REMEMBERED = 1024;
/** Characters of an id (terminal, tool call, message) followed: a longer one is not followed. */
export const MAX_ID_CHARS = 256;
/** Characters of a command or title kept for display. */
const MAX_LABEL_CHARS = 200;
/** Characters of a cwd kept. */
const MAX_PATH_CHARS = 4096;

/** What a dialect reports of a terminal the agent runs; a field left out was not reported. */
export interface TerminalReport {
  /** The whole command line; null: not known (any more). */
  command?: string | null;
  cwd?: string | null;
  /** The terminal's size (clamped; the default when null). */
  size?: { cols?: unknown; rows?: unknown } | null;
  /** Whether the agent can cancel it now. */
  cancellable?: boolean;
  /** The whole output so far (a snapshot): replaces what was shown. */
  output?: Uint8Array;
  /** It exited (reported once; a later report of an exit is ignored). */
  exitStatus?: { exitCode?: unknown; signal?: unknown };
}

/** Text cut to `max` characters, the last one an ellipsis. */
export function label(text: string, max = MAX_LABEL_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The terminals an agent runs and reports, whatever the dialect (ACP v2's agent-owned terminals,
 * and any other report of commands the agent runs itself): each held as an `AgentTerminal` and
 * shown through the view as it is reported, created by its first report or chunk (its fields
 * unknown until reported), exited once, then frozen to its screen's text.
 *
 * Bounded: at most `maxTerminals` running terminals and `maxTotalTerminals` in all are followed
 * (the flags that bound the CLI's own), each holding at most its output byte limit; ids, commands
 * and cwds are cut to their caps; terminals beyond the limits are ignored, with one notice.
 */
export class AgentTerminals {
  private readonly terminals = new Map<string, AgentTerminal>();
  private readonly records = new Map<string, TerminalRecord>();
  private running = 0;
  private ignoredTerminals = 0;
  private readonly ignoredIds = new Set<string>();

  constructor(
    private readonly view: Renderer,
    private readonly limits: TerminalLimits,
    private readonly protocol: ProtocolName,
  ) {}

  get(terminalId: string): AgentTerminal | undefined {
    return this.terminals.get(terminalId);
  }

  /** Terminals followed that have not exited, for Ctrl-C. */
  runningIds(): string[] {
    return [...this.terminals.values()]
      .filter((terminal) => terminal.exitStatus === undefined)
      .map((terminal) => terminal.terminalId);
  }

  terminalRecords(): TerminalRecord[] {
    return [...this.records.values()];
  }

  /** A report of a terminal: its fields, then a snapshot of its output, then its exit. */
  report(terminalId: unknown, report: TerminalReport): void {
    const found = this.terminal(terminalId, false);
    if (found === undefined) {
      return;
    }
    const { terminal, isNew } = found;
    let changed = false;
    if (report.command !== undefined) {
      terminal.command = report.command === null ? undefined : label(report.command);
      changed = true;
      const record = this.records.get(terminal.terminalId);
      if (record !== undefined) {
        record.command = terminal.command ?? "";
      }
    }
    if (report.cwd !== undefined) {
      terminal.cwd = report.cwd === null ? undefined : label(report.cwd, MAX_PATH_CHARS);
      changed = true;
    }
    if (report.size !== undefined) {
      terminal.resize(clampSize(report.size));
      changed = true;
    }
    if (report.cancellable !== undefined) {
      terminal.cancellable = terminal.exitStatus === undefined && report.cancellable;
      changed = true;
    }
    if (isNew) {
      this.view.agentTerminalCreated(terminal);
    } else if (changed) {
      this.view.agentTerminalChanged(terminal);
    }
    if (report.output !== undefined && !terminal.frozen) {
      terminal.replace(report.output);
      this.view.agentTerminalReplaced(terminal);
    }
    if (report.exitStatus !== undefined && terminal.exitStatus === undefined) {
      this.exited(terminal, report.exitStatus);
    }
  }

  /** Output of a terminal, appended (a terminal not reported yet is created by it). */
  append(terminalId: unknown, bytes: Uint8Array): void {
    const found = this.terminal(terminalId, true);
    if (found === undefined || found.terminal.frozen) {
      return;
    }
    found.terminal.append(bytes);
    this.view.terminalOutput(found.terminal.terminalId);
  }

  /** The terminal, created (and shown at once when `announce`) when new and within the limits. */
  private terminal(
    terminalId: unknown,
    announce: boolean,
  ): { terminal: AgentTerminal; isNew: boolean } | undefined {
    if (typeof terminalId !== "string") {
      return undefined;
    }
    const known = this.terminals.get(terminalId);
    if (known !== undefined) {
      return { terminal: known, isNew: false };
    }
    if (terminalId.length > MAX_ID_CHARS) {
      this.ignore(terminalId.slice(0, MAX_ID_CHARS));
      return undefined;
    }
    if (
      this.running >= this.limits.maxTerminals ||
      this.terminals.size >= this.limits.maxTotalTerminals
    ) {
      this.ignore(terminalId);
      return undefined;
    }
    const terminal = new AgentTerminal(terminalId, undefined, this.protocol);
    this.terminals.set(terminalId, terminal);
    this.records.set(terminalId, { terminalId, command: "" });
    this.running++;
    if (announce) {
      this.view.agentTerminalCreated(terminal);
    }
    return { terminal, isNew: !announce };
  }

  private ignore(terminalId: string): void {
    if (this.ignoredIds.has(terminalId)) {
      return;
    }
    if (this.ignoredIds.size < MAX_REMEMBERED) {
      this.ignoredIds.add(terminalId);
    }
    if (this.ignoredTerminals++ === 0) {
      this.view.notice(
        `acp-terminal: the agent has more terminals than shown (at most ${this.limits.maxTerminals} running and ${this.limits.maxTotalTerminals} in all: --max-terminals, --max-total-terminals); the others are ignored`,
      );
    }
  }

  private exited(terminal: AgentTerminal, status: { exitCode?: unknown; signal?: unknown }): void {
    const exitStatus: ExitStatus = {
      exitCode: typeof status.exitCode === "number" ? status.exitCode : null,
      signal: typeof status.signal === "string" ? label(status.signal) : null,
    };
    terminal.exitStatus = exitStatus;
    terminal.cancellable = false;
    this.running--;
    const record = this.records.get(terminal.terminalId);
    if (record !== undefined) {
      record.exitStatus = exitStatus;
    }
    this.view.terminalExited(terminal.terminalId, exitStatus);
    terminal.freeze();
  }
}
