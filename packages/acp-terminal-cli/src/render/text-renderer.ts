// Over 300 lines: one class, the text view of every view event; what it draws lives in the
// modules it imports (tool-call-lines, terminal-views, text-output, piped-lines).
import type { ExitStatus, TerminalInfo } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import type { AgentTerminal } from "../view/agent-terminal.js";
import type {
  BackgroundItem,
  PlanItem,
  Renderer,
  RunResult,
  ToolCallShown,
  TurnShown,
} from "../view/renderer.js";
import { formatSummary } from "./format.js";
import type { Output } from "./output.js";
import { PipedLines } from "./piped-lines.js";
import { TerminalViews } from "./terminal-views.js";
import { MAX_OPEN_TOOL_CALLS, ToolCallBook } from "./tool-call-book.js";
import { TextOutput } from "./text-output.js";
import {
  backgroundLine,
  DONE,
  finalLines,
  header,
  headerRepeats,
  PLAIN_STREAM_LINES,
  planLines,
  tailLines,
  textLines,
  type ToolCallView,
} from "./tool-call-lines.js";

/** Terminals not yet appeared that one tool call waits for, at most. */
const MAX_AWAITED_TERMINALS = 64;

/**
 * Renders a run for people: message text as it streams, tool calls with their status, and the
 * tail of every terminal embedded in a tool call. On a TTY the unfinished tool calls live in a
 * region redrawn in place; piped, everything is appended as plain prefixed lines.
 *
 * Terminal output is never decoded as it arrives: the tails are read from the terminals' buffers
 * when drawn (at most once a frame on a TTY), and piped, the first lines of each terminal are read
 * by a cursor at most once a frame too, and not while the reader lags. It shows the view events
 * (the wire, `rawUpdate`, is JSON's): thoughts dimmed behind a gutter, the plan as a block each
 * time it changes. When a turn ends every tool call is printed for good, its terminals that still
 * run said to; a terminal that ends after that is printed then, with its last lines.
 */
export class TextRenderer implements Renderer {
  private readonly toolCalls = new ToolCallBook();
  private readonly terminals = new TerminalViews();
  /** Open tool calls whose content shows a terminal that has not appeared yet. */
  private readonly awaiting = new Set<string>();
  private readonly output: TextOutput;
  /** Piped: the first lines of each terminal, printed as they come. */
  private readonly piped: PipedLines;
  /** The line that ends a failed run was printed already (`failed`). */
  private failedShown = false;

  constructor(out: Output, err: Output) {
    this.output = new TextOutput(out, err, () => this.liveLines());
    this.piped = new PipedLines(
      out,
      (id) => this.terminals.get(id),
      (line) => this.output.print(line),
    );
  }

  /** Tool calls held, open and finished (bounded by the two limits above). */
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

  /** Every tool call is printed for good; terminals that still run are said to. */
  turnEnded(turn: TurnShown): void {
    void turn;
    this.piped.flush();
    for (const [id] of this.toolCalls.entries()) {
      this.commit(id);
    }
  }

  failed(error: string): void {
    this.failedShown = true;
    this.output.notice(error);
  }

  toolCallStarted(call: ToolCallShown & { title: string }): void {
    const view: ToolCallView = {
      title: call.title,
      status: call.status ?? "pending",
      terminalIds: [],
      awaited: [],
      text: call.content?.text,
      committed: false,
    };
    for (const oldest of this.toolCalls.openBeyond(MAX_OPEN_TOOL_CALLS - 1)) {
      this.commit(oldest);
    }
    this.toolCalls.set(call.toolCallId, view);
    this.toolCallChanged(call.toolCallId, call.content?.terminalIds ?? [], true);
  }

  toolCallUpdated(call: ToolCallShown): void {
    const view = this.toolCalls.get(call.toolCallId);
    if (view === undefined || view.committed) {
      return;
    }
    const before = { ...view };
    if (call.title) {
      view.title = call.title;
    }
    if (call.status) {
      view.status = call.status;
    }
    if (call.content) {
      view.text = call.content.text;
    }
    this.toolCallChanged(
      call.toolCallId,
      call.content?.terminalIds ?? [],
      !headerRepeats(before, view, this.output.headerOnTop === call.toolCallId),
    );
  }

  terminalCreated(info: TerminalInfo, output: OutputReader, screen?: () => string): void {
    this.terminals.hosted(info.terminalId, output, screen);
    this.terminals.label(info.terminalId, [info.command, ...info.args].join(" "));
    this.attachLate(info.terminalId);
  }

  agentTerminalCreated(terminal: AgentTerminal): void {
    this.terminals.agent(terminal);
    this.terminals.label(terminal.terminalId, terminal.command);
    this.attachLate(terminal.terminalId);
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
    if (this.toolCalls.get(term.toolCallId)?.committed === false) {
      this.settle(term.toolCallId);
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
      this.settle(term.toolCallId);
    }
    this.piped.flush();
    this.terminals.freeze(terminalId);
  }

  notice(message: string): void {
    this.output.notice(message);
  }

  pause(): void {
    this.output.pause();
  }

  resume(): void {
    this.output.resume();
  }

  finish(result: RunResult): void {
    this.piped.cancel();
    for (const [id] of this.toolCalls.entries()) {
      this.commit(id);
    }
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
      for (const [, view] of this.toolCalls.entries()) {
        if (!view.committed) {
          view.terminalIds.forEach((id) => this.piped.mark(id));
        }
      }
    }
    this.piped.flush();
  }

  private toolCallChanged(toolCallId: string, terminalIds: string[], printHeader: boolean): void {
    const view = this.toolCalls.get(toolCallId)!;
    this.piped.flush();
    if (this.output.live === undefined && printHeader && !DONE.has(view.status)) {
      this.output.print(header(view));
      this.output.headerOnTop = toolCallId;
    }
    this.attach(view, toolCallId, terminalIds);
    this.settle(toolCallId);
    if (this.output.live !== undefined) {
      this.output.redraw();
    }
  }

  private attach(view: ToolCallView, toolCallId: string, terminalIds: string[]): void {
    for (const id of terminalIds) {
      const term = this.terminals.get(id);
      if (term === undefined) {
        if (!view.awaited.includes(id) && view.awaited.length < MAX_AWAITED_TERMINALS) {
          view.awaited.push(id);
          this.awaiting.add(toolCallId);
        }
        continue;
      }
      if (view.terminalIds.includes(id)) {
        continue;
      }
      view.terminalIds.push(id);
      term.toolCallId = toolCallId;
      // Output that came before the tool call showed this terminal streams from its first line.
      if (this.output.live === undefined) {
        this.piped.mark(id);
      }
    }
    this.piped.flush();
  }

  /**
   * A terminal that appears after a tool call's content showed it (an agent may report one late)
   * is attached to that tool call then, as if the content came again.
   */
  private attachLate(terminalId: string): void {
    for (const toolCallId of [...this.awaiting]) {
      const view = this.toolCalls.get(toolCallId);
      const at = view?.awaited.indexOf(terminalId) ?? -1;
      if (view === undefined || at === -1) {
        continue;
      }
      view.awaited.splice(at, 1);
      if (view.awaited.length === 0) {
        this.awaiting.delete(toolCallId);
      }
      this.toolCallChanged(toolCallId, [terminalId], false);
    }
  }

  /** A finished tool call whose terminals have all ended is printed for good. */
  private settle(toolCallId: string): void {
    const view = this.toolCalls.get(toolCallId);
    if (view === undefined) {
      return; // finished and forgotten
    }
    const ended = view.terminalIds.every((id) => {
      const term = this.terminals.get(id);
      return term === undefined || term.exitStatus !== undefined || term.released;
    });
    if (DONE.has(view.status) && ended) {
      this.commit(toolCallId);
    }
  }

  private commit(toolCallId: string): void {
    const view = this.toolCalls.get(toolCallId);
    if (view === undefined || view.committed) {
      return;
    }
    this.piped.flush();
    view.committed = true;
    this.awaiting.delete(toolCallId);
    const terminalLines = view.terminalIds.flatMap((id) => {
      const term = this.terminals.get(id);
      return term === undefined ? [] : finalLines(term, this.output.live !== undefined);
    });
    this.output.printBlock([header(view), ...textLines(view), ...terminalLines]);
    this.toolCalls.finished(toolCallId);
  }

  /** The live region: every tool call not yet printed for good, with its terminals' tails. */
  private liveLines(): string[] {
    const lines: string[] = [];
    for (const [, view] of this.toolCalls.entries()) {
      if (view.committed) {
        continue;
      }
      lines.push(header(view));
      for (const id of view.terminalIds) {
        const tail = this.terminals.get(id)?.tail;
        if (tail !== undefined) {
          lines.push(...tailLines(tail));
        }
      }
    }
    return lines;
  }
}
