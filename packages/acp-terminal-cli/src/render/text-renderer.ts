import type { ExitStatus, TerminalInfo } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import type { AgentTerminal } from "../view/agent-terminal.js";
import type {
  BackgroundItem,
  InitializeShown,
  PlanItem,
  Renderer,
  RunResult,
  ToolCallShown,
  TurnShown,
} from "../view/renderer.js";
import { formatSummary } from "./format.js";
import type { Output } from "./output.js";
import { PipedLines } from "./piped-lines.js";
import { introLine, sessionLine, turnSeparator } from "./session-lines.js";
import { TerminalViews } from "./terminal-views.js";
import { TextOutput } from "./text-output.js";
import {
  backgroundLine,
  finalLines,
  PLAIN_STREAM_LINES,
  planLines,
  TTY_HEAD_LINES,
} from "./tool-call-lines.js";
import { ToolCallViews } from "./tool-call-views.js";

/** The line typed during a turn, as the live region shows it: its first line, and how many more. */
function typedLine(text: string): string {
  const [first = "", ...more] = text.split("\n");
  return `› ${first}${more.length === 0 ? "" : ` (+${more.length} line${more.length === 1 ? "" : "s"})`}`;
}

/** What the text view says of the session besides the conversation. */
export interface TextSessionOptions {
  /** Where the agent's stderr goes (said at start). */
  agentLog?: string | undefined;
  /** A session of many turns: a line under each says how it ended. */
  turnSeparators?: boolean;
}

/**
 * Renders a run for people: message text as it streams, tool calls with their status, and the
 * tail of every terminal embedded in a tool call. On a TTY the unfinished tool calls live in a
 * region redrawn in place; piped, everything is appended as plain prefixed lines.
 *
 * Each of the CLI's pipe terminals is seen chunk by chunk by its own bounded view (`OutputLines`:
 * first lines, newest lines, exact counts between), whatever the agent's `outputByteLimit` keeps;
 * lines are decoded only when drawn (at most once a frame on a TTY), and piped, the first lines of
 * each terminal are printed at most once a frame too, and not while the reader lags. It shows the view events
 * (the wire, `rawUpdate`, is JSON's): thoughts dimmed behind a gutter, the plan as a block each
 * time it changes. When a turn ends every tool call is printed for good, its terminals that still
 * run said to; a terminal that ends after that is printed then, with its last lines.
 */
export class TextRenderer implements Renderer {
  private readonly terminals = new TerminalViews();
  private readonly output: TextOutput;
  /** Piped: the first lines of each terminal, printed as they come. */
  private readonly piped: PipedLines;
  private readonly toolCalls: ToolCallViews;
  /** The line that ends a failed run was printed already (`failed`). */
  private failedShown = false;
  /** When the turn under way started. */
  private turnStartedAt = 0;
  /** What the person types during the turn, shown at the bottom of the live region. */
  private typedText = "";

  constructor(
    out: Output,
    err: Output,
    private readonly session: TextSessionOptions = {},
  ) {
    this.output = new TextOutput(out, err, () => [
      ...this.toolCalls.liveLines(),
      ...(this.typedText === "" ? [] : [typedLine(this.typedText)]),
    ]);
    this.piped = new PipedLines(
      out,
      (id) => this.terminals.get(id),
      (line) => this.output.print(line),
    );
    this.toolCalls = new ToolCallViews(this.terminals, this.output, this.piped);
  }

  /** Tool calls held, open and finished (bounded by ToolCallBook's two limits). */
  get heldToolCalls(): number {
    return this.toolCalls.size;
  }

  rawUpdate(): void {
    // The wire is JSON's; the other events carry what is shown.
  }

  messageText(text: string): void {
    this.flushTerminals();
    this.output.text(text);
  }

  thoughtText(text: string): void {
    this.flushTerminals();
    this.output.thought(text);
  }

  plan(items: PlanItem[]): void {
    this.piped.flush();
    this.output.printBlock(planLines(items));
  }

  /** Which agent runs, and where its stderr goes (stderr, at start). */
  initialized(intro: InitializeShown): void {
    this.output.notice(introLine(intro, this.session.agentLog));
  }

  /** The session's id, to resume it (stderr, at start). */
  sessionStarted(session: { sessionId: string; how: string }): void {
    this.output.notice(sessionLine(session));
  }

  turnStarted(): void {
    this.turnStartedAt = performance.now();
  }

  /**
   * Every tool call is printed for good; terminals that still run are said to. The turn's text
   * ends its line, and in a session of many turns a line says how the turn ended.
   */
  turnEnded(turn: TurnShown): void {
    this.piped.flush();
    this.toolCalls.commitAll();
    this.output.printBlock([]);
    if (this.session.turnSeparators === true) {
      this.output.notice(turnSeparator(turn, performance.now() - this.turnStartedAt));
    }
  }

  failed(error: string): void {
    this.failedShown = true;
    this.output.notice(error);
  }

  toolCallStarted(call: ToolCallShown & { title: string }): void {
    this.toolCalls.started(call);
  }

  toolCallUpdated(call: ToolCallShown): void {
    this.toolCalls.updated(call);
  }

  terminalCreated(info: TerminalInfo, output: OutputReader, screen?: () => string): void {
    const headLines = this.output.live === undefined ? PLAIN_STREAM_LINES : TTY_HEAD_LINES;
    this.terminals.hosted(info.terminalId, output, headLines, screen);
    this.terminals.label(info.terminalId, [info.command, ...info.args].join(" "));
    this.toolCalls.terminalAppeared(info.terminalId);
  }

  agentTerminalCreated(terminal: AgentTerminal): void {
    this.terminals.agent(terminal);
    this.terminals.label(terminal.terminalId, terminal.command);
    this.toolCalls.terminalAppeared(terminal.terminalId);
  }

  agentTerminalChanged(terminal: AgentTerminal): void {
    this.terminals.label(terminal.terminalId, terminal.command);
    this.terminalOutput(terminal.terminalId);
  }

  agentTerminalReplaced(terminal: AgentTerminal): void {
    this.terminalOutput(terminal.terminalId);
  }

  /** Background work is printed as a line each time the agent's list of it changes. */
  background(items: BackgroundItem[]): void {
    this.output.print(backgroundLine(items));
  }

  terminalBytes(terminalId: string, data: Uint8Array): void {
    if (this.terminals.bytes(terminalId, data) !== undefined) {
      this.terminalOutput(terminalId);
    }
  }

  terminalOutput(terminalId: string): void {
    const term = this.terminals.get(terminalId);
    if (term === undefined) {
      return;
    }
    if (this.output.live !== undefined) {
      if (term.toolCallId !== undefined) {
        this.output.live.schedule();
      }
      return;
    }
    if (term.lines === undefined || term.streamed >= PLAIN_STREAM_LINES) {
      return;
    }
    this.piped.schedule(terminalId);
  }

  terminalExited(terminalId: string, exitStatus: ExitStatus): void {
    const term = this.terminals.exited(terminalId, exitStatus);
    if (term?.toolCallId === undefined) {
      return;
    }
    if (this.toolCalls.isOpen(term.toolCallId)) {
      this.toolCalls.settle(term.toolCallId);
      return;
    }
    // Its tool call was printed for good (a turn ended): background work that ended since.
    this.piped.flush();
    const label = term.label === undefined ? terminalId : `${terminalId} (${term.label})`;
    this.output.printBlock([
      `⋯ terminal ${label} ended`,
      ...finalLines(term, this.output.live !== undefined),
    ]);
  }

  terminalReleased(terminalId: string): void {
    const term = this.terminals.get(terminalId);
    if (term === undefined) {
      return;
    }
    term.released = true;
    if (term.toolCallId !== undefined) {
      this.toolCalls.settle(term.toolCallId);
    }
    this.piped.flush();
    this.terminals.freeze(terminalId);
  }

  notice(message: string): void {
    this.output.notice(message);
  }

  typed(text: string): void {
    this.typedText = text;
    this.output.redraw();
  }

  pause(): void {
    this.output.pause();
  }

  resume(): void {
    this.output.resume();
  }

  finish(result: RunResult): void {
    this.piped.cancel();
    this.toolCalls.commitAll();
    const error = result.error === undefined || this.failedShown ? [] : [result.error];
    this.output.close([...error, formatSummary(result)]);
  }

  /**
   * Piped: the lines every open tool call's terminals completed so far are printed before the
   * agent's text, not on the next frame, so that text which follows a command's output (the
   * agent read it) comes after it.
   */
  private flushTerminals(): void {
    if (this.output.live === undefined) {
      this.toolCalls.markOpenTerminals();
    }
    this.piped.flush();
  }
}
