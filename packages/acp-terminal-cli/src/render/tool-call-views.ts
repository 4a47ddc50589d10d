import type { ToolCallShown } from "../view/renderer.js";
import type { PipedLines } from "./piped-lines.js";
import type { TerminalViews } from "./terminal-views.js";
import type { TextOutput } from "./text-output.js";
import { MAX_OPEN_TOOL_CALLS, ToolCallBook } from "./tool-call-book.js";
import {
  changeLines,
  DONE,
  finalLines,
  header,
  headerRepeats,
  tailLines,
  textLines,
  type ToolCallView,
} from "./tool-call-lines.js";

/** Terminals not yet appeared that one tool call waits for, at most. */
const MAX_AWAITED_TERMINALS = 64;

/**
 * The tool calls as the text renderer draws them, with the terminals they show: on a TTY the
 * unfinished ones in the live region with their terminals' tails; piped, a header line when one
 * starts or its header changes, its terminals' first lines streamed under it. A tool call that
 * finished and whose terminals all ended is printed for good, with their last lines.
 */
export class ToolCallViews {
  private readonly toolCalls = new ToolCallBook();
  /** Open tool calls whose content shows a terminal that has not appeared yet. */
  private readonly awaiting = new Set<string>();

  constructor(
    private readonly terminals: TerminalViews,
    private readonly output: TextOutput,
    private readonly piped: PipedLines,
  ) {}

  /** Tool calls held, open and finished (bounded by ToolCallBook's two limits). */
  get size(): number {
    return this.toolCalls.size;
  }

  started(call: ToolCallShown & { title: string }): void {
    const view: ToolCallView = {
      title: call.title,
      status: call.status ?? "pending",
      terminalIds: [],
      awaited: [],
      text: call.content?.text,
      diffs: call.content?.diffs,
      inputDiff: call.inputDiff,
      committed: false,
    };
    for (const oldest of this.toolCalls.openBeyond(MAX_OPEN_TOOL_CALLS - 1)) {
      this.commit(oldest);
    }
    this.toolCalls.set(call.toolCallId, view);
    this.changed(call.toolCallId, call.content?.terminalIds ?? [], true);
  }

  updated(call: ToolCallShown): void {
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
      view.diffs = call.content.diffs;
    }
    if (call.inputDiff) {
      view.inputDiff = call.inputDiff;
    }
    this.changed(
      call.toolCallId,
      call.content?.terminalIds ?? [],
      !headerRepeats(before, view, this.output.headerOnTop === call.toolCallId),
    );
  }

  /** The tool call is held and not yet printed for good. */
  isOpen(toolCallId: string): boolean {
    return this.toolCalls.get(toolCallId)?.committed === false;
  }

  /** Piped: every open tool call's terminals stream their complete lines on the next flush. */
  markOpenTerminals(): void {
    for (const [, view] of this.toolCalls.entries()) {
      if (!view.committed) {
        view.terminalIds.forEach((id) => this.piped.mark(id));
      }
    }
  }

  /**
   * A terminal that appears after a tool call's content showed it (an agent may report one late)
   * is attached to that tool call then, as if the content came again.
   */
  terminalAppeared(terminalId: string): void {
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
      this.changed(toolCallId, [terminalId], false);
    }
  }

  /** A finished tool call whose terminals have all ended is printed for good. */
  settle(toolCallId: string): void {
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

  /** Every tool call is printed for good as it stands. */
  commitAll(): void {
    for (const [id] of this.toolCalls.entries()) {
      this.commit(id);
    }
  }

  /** The live region: every tool call not yet printed for good, with its terminals' tails. */
  liveLines(): string[] {
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

  private changed(toolCallId: string, terminalIds: string[], printHeader: boolean): void {
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
    const tty = this.output.live !== undefined;
    this.output.printBlock([
      header(view),
      ...changeLines(view, tty),
      ...textLines(view),
      ...terminalLines,
    ]);
    this.toolCalls.finished(toolCallId);
  }
}
