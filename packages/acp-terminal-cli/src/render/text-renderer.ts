import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ExitStatus, TerminalInfo } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import { formatSummary, type RunResult } from "./format.js";
import { FrameTimer } from "./frame-timer.js";
import { LineStream } from "./line-stream.js";
import { FRAME_MS, LiveRegion } from "./live-region.js";
import { ScreenTail, type AgentTerminal } from "../view/agent-terminal.js";
import { HostScreen } from "./host-screen.js";
import type { BackgroundItem, Output, Renderer } from "../view/renderer.js";
import { TerminalTail } from "./terminal-tail.js";
import {
  DONE,
  finalLines,
  GUTTER,
  header,
  PLAIN_STREAM_LINES,
  tailLines,
  terminalIdsOf,
  textLines,
  textOf,
  type TerminalView,
  type ToolCallView,
} from "./views.js";

/** Message text held back while the live region is up, before it is written anyway. */
const MAX_PENDING_TEXT = 4096;

/**
 * Renders a run for people: message text as it streams, tool calls with their status, and the
 * tail of every terminal embedded in a tool call. On a TTY the unfinished tool calls live in a
 * region redrawn in place; piped, everything is appended as plain prefixed lines.
 *
 * Terminal output is never decoded as it arrives: the tails are read from the host's buffers when
 * drawn (at most once a frame on a TTY), and piped, the first lines of each terminal are read by a
 * cursor at most once a frame too, and not while the reader lags.
 */
/** Tool calls open at once: beyond this the oldest open one is printed for good as it stands. */
export const MAX_OPEN_TOOL_CALLS = 256;
/** Finished tool calls remembered (an update for one is ignored): the oldest are forgotten beyond this. */
export const MAX_FINISHED_TOOL_CALLS = 1024;

export class TextRenderer implements Renderer {
  private readonly toolCalls = new Map<string, ToolCallView>();
  /** Ids of finished tool calls, oldest first, for forgetting them beyond MAX_FINISHED_TOOL_CALLS. */
  private readonly finished: string[] = [];
  private readonly terminals = new Map<string, TerminalView>();
  /** v1 PTY terminals drawn from the host's emulator, until their exit keeps the text. */
  private readonly hostScreens = new Map<string, HostScreen>();
  private readonly live: LiveRegion | undefined;
  private openLine = false;
  private pendingText = "";
  /** Permission questions in progress (they may overlap). */
  private pauses = 0;
  /** Piped: the tool call whose header is the last line printed (nothing printed after it). */
  private headerOnTop: string | undefined;
  /** Piped: terminals with output not yet streamed, and the timer that streams it. */
  private readonly unstreamed = new Set<string>();
  private readonly streamTimer: FrameTimer;

  constructor(
    private readonly out: Output,
    private readonly err: Output,
  ) {
    this.live = out.isTTY
      ? new LiveRegion(
          out,
          () => this.liveLines(),
          () => this.breakLine(),
        )
      : undefined;
    this.streamTimer = new FrameTimer(out, () => this.streamNow(), FRAME_MS);
  }

  sessionUpdate(update: SessionUpdate): void {
    if (update.sessionUpdate === "agent_message_chunk") {
      if (update.content.type === "text") {
        this.text(update.content.text);
      }
    } else if (update.sessionUpdate === "tool_call") {
      const view: ToolCallView = {
        title: update.title,
        status: update.status ?? "pending",
        terminalIds: [],
        text: textOf(update.content),
        committed: false,
      };
      this.closeOldestBeyond(MAX_OPEN_TOOL_CALLS - 1);
      this.toolCalls.set(update.toolCallId, view);
      this.toolCallChanged(update.toolCallId, terminalIdsOf(update.content), true);
    } else if (update.sessionUpdate === "tool_call_update") {
      const view = this.toolCalls.get(update.toolCallId);
      if (view === undefined || view.committed) {
        return;
      }
      const before = { ...view };
      if (update.title) {
        view.title = update.title;
      }
      if (update.status) {
        view.status = update.status;
      }
      if (update.content) {
        view.text = textOf(update.content);
      }
      this.toolCallChanged(
        update.toolCallId,
        terminalIdsOf(update.content),
        this.headerWorthPrinting(update.toolCallId, before, view),
      );
    }
  }

  terminalCreated(info: TerminalInfo, output: OutputReader, screen?: () => string): void {
    if (screen !== undefined) {
      // A PTY's lines are what its screen shows, and can change until the exit: drawn live, and
      // printed whole when piped, as for an agent-owned terminal.
      const hostScreen = new HostScreen(screen, output);
      this.hostScreens.set(info.terminalId, hostScreen);
      this.terminals.set(info.terminalId, {
        tail: new ScreenTail(hostScreen),
        lines: undefined,
        released: false,
        streamed: 0,
      });
      return;
    }
    const tail = new TerminalTail(output);
    this.terminals.set(info.terminalId, {
      tail,
      lines: new LineStream(() => tail.source),
      released: false,
      streamed: 0,
    });
  }

  agentTerminalCreated(terminal: AgentTerminal): void {
    this.terminals.set(terminal.terminalId, {
      tail: new ScreenTail(terminal),
      lines: undefined,
      released: false,
      streamed: 0,
    });
  }

  agentTerminalChanged(terminal: AgentTerminal): void {
    this.terminalOutput(terminal.terminalId);
  }

  agentTerminalReplaced(terminal: AgentTerminal): void {
    this.terminalOutput(terminal.terminalId);
  }

  /** Background work is printed as a line each time the agent's list of it changes. */
  background(items: BackgroundItem[]): void {
    const names = items.map((item) => {
      const id = item.terminalId ?? item.toolCallId;
      const what =
        item.type === "terminal" ? "terminal" : item.type === "tool_call" ? "tool call" : item.type;
      return `${what}${id === undefined ? "" : ` ${id}`}${item.label === undefined ? "" : ` (${item.label})`}`;
    });
    this.print(`⋯ background: ${names.length === 0 ? "none" : names.join(", ")}`);
  }

  terminalOutput(terminalId: string): void {
    const term = this.terminals.get(terminalId);
    if (term === undefined) {
      return;
    }
    if (this.live !== undefined) {
      if (term.toolCallId !== undefined) {
        this.live.schedule();
      }
      return;
    }
    if (term.lines === undefined || term.streamed >= PLAIN_STREAM_LINES) {
      return;
    }
    this.unstreamed.add(terminalId);
    this.scheduleStream();
  }

  terminalExited(terminalId: string, exitStatus: ExitStatus): void {
    const term = this.terminals.get(terminalId);
    if (term === undefined) {
      return;
    }
    term.exitStatus = exitStatus;
    this.hostScreens.get(terminalId)?.freeze();
    this.hostScreens.delete(terminalId);
    if (term.toolCallId !== undefined) {
      this.settle(term.toolCallId);
    }
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
    this.streamNow();
    term.tail.freeze();
    this.hostScreens.delete(terminalId);
  }

  notice(message: string): void {
    this.live?.clear();
    this.breakLine();
    this.err.write(`${message}\n`);
    this.live?.draw();
  }

  pause(): void {
    if (this.pauses++ > 0) {
      return;
    }
    this.live?.hold();
    this.breakLine();
  }

  resume(): void {
    if (--this.pauses === 0) {
      this.live?.release();
    }
  }

  finish(result: RunResult): void {
    this.streamTimer.cancel();
    for (const id of this.toolCalls.keys()) {
      this.commit(id);
    }
    this.live?.dispose();
    this.flushText();
    this.breakLine();
    if (result.error !== undefined) {
      this.err.write(`${result.error}\n`);
    }
    this.err.write(`${formatSummary(result)}\n`);
  }

  private toolCallChanged(toolCallId: string, terminalIds: string[], printHeader: boolean): void {
    const view = this.toolCalls.get(toolCallId)!;
    this.streamNow();
    if (this.live === undefined && printHeader && !DONE.has(view.status)) {
      this.print(header(view));
      this.headerOnTop = toolCallId;
    }
    this.attach(view, toolCallId, terminalIds);
    this.settle(toolCallId);
    if (this.live !== undefined) {
      this.redraw();
    }
  }

  /**
   * Piped, a tool call's header is printed when it starts and again when its header changes, except
   * for `pending` → `in_progress` with nothing printed since its header: that line would only
   * repeat the one above it. (Its final status is printed when it ends, by `commit`.)
   */
  private headerWorthPrinting(
    toolCallId: string,
    before: ToolCallView,
    after: ToolCallView,
  ): boolean {
    if (header(before) === header(after)) {
      return false;
    }
    const quietStart =
      before.status === "pending" && after.status === "in_progress" && before.title === after.title;
    return !(quietStart && this.headerOnTop === toolCallId);
  }

  private text(text: string): void {
    this.streamNow();
    if (this.live === undefined || !this.live.active) {
      this.flushText();
      this.write(text);
      return;
    }
    // A partial line cannot sit above the live region: hold it until its newline comes.
    const all = this.pendingText + text;
    const cut = all.length > MAX_PENDING_TEXT ? all.length : all.lastIndexOf("\n") + 1;
    this.pendingText = all.slice(cut);
    if (cut > 0) {
      this.live.clear();
      this.write(all.slice(0, cut));
      this.breakLine();
      this.live.draw();
    }
  }

  private flushText(): void {
    const pending = this.pendingText;
    this.pendingText = "";
    if (pending !== "") {
      this.write(pending);
    }
  }

  private write(text: string): void {
    this.out.write(text);
    if (text === "") {
      return;
    }
    this.openLine = !text.endsWith("\n");
    this.headerOnTop = undefined;
  }

  /** Piped: streams pending terminal lines on the next frame, or once the reader has caught up. */
  private scheduleStream(): void {
    this.streamTimer.schedule();
  }

  /** Prints the lines terminals completed since the last time, up to each one's cap. */
  private streamNow(): void {
    if (this.unstreamed.size === 0) {
      return;
    }
    const ids = [...this.unstreamed];
    this.unstreamed.clear();
    for (const id of ids) {
      const term = this.terminals.get(id);
      if (
        term?.toolCallId === undefined ||
        term.lines === undefined ||
        term.streamed >= PLAIN_STREAM_LINES
      ) {
        continue;
      }
      for (const line of term.lines.take(PLAIN_STREAM_LINES - term.streamed)) {
        term.streamed++;
        this.print(GUTTER + line);
      }
    }
  }

  /** Appends a permanent line above the live region. */
  private print(line: string): void {
    this.live?.clear();
    this.breakLine();
    this.out.write(`${line}\n`);
    this.headerOnTop = undefined;
    this.live?.draw();
  }

  private breakLine(): void {
    if (!this.openLine) {
      return;
    }
    this.out.write("\n");
    this.openLine = false;
  }

  private redraw(): void {
    this.live?.clear();
    this.live?.draw();
  }

  private attach(view: ToolCallView, toolCallId: string, terminalIds: string[]): void {
    for (const id of terminalIds) {
      const term = this.terminals.get(id);
      if (term === undefined || view.terminalIds.includes(id)) {
        continue;
      }
      view.terminalIds.push(id);
      term.toolCallId = toolCallId;
      // Output that came before the tool call showed this terminal streams from its first line.
      if (this.live === undefined) {
        this.unstreamed.add(id);
      }
    }
    this.streamNow();
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
    this.streamNow();
    view.committed = true;
    const terminalLines = view.terminalIds.flatMap((id) => {
      const term = this.terminals.get(id);
      return term === undefined ? [] : finalLines(term, this.live !== undefined);
    });
    const lines = [header(view), ...textLines(view), ...terminalLines];
    this.live?.clear();
    this.flushText();
    this.breakLine();
    this.out.write(lines.map((line) => `${line}\n`).join(""));
    this.headerOnTop = undefined;
    this.live?.draw();
    this.forgetBeyond(toolCallId);
  }

  /** Tool calls held, open and finished (bounded by the two limits above). */
  get heldToolCalls(): number {
    return this.toolCalls.size;
  }

  /** Prints the oldest open tool calls for good while more than `max` are open. */
  private closeOldestBeyond(max: number): void {
    let open = 0;
    for (const view of this.toolCalls.values()) {
      if (!view.committed) {
        open++;
      }
    }
    for (const [id, view] of this.toolCalls) {
      if (open <= max) {
        return;
      }
      if (!view.committed) {
        this.commit(id);
        open--;
      }
    }
  }

  /** Remembers a finished tool call, forgetting the oldest beyond MAX_FINISHED_TOOL_CALLS. */
  private forgetBeyond(toolCallId: string): void {
    this.finished.push(toolCallId);
    while (this.finished.length > MAX_FINISHED_TOOL_CALLS) {
      const oldest = this.finished.shift()!;
      // A tool call announced again under the same id is open again: not forgotten.
      if (this.toolCalls.get(oldest)?.committed === true) {
        this.toolCalls.delete(oldest);
      }
    }
  }

  /** The live region: every tool call not yet printed for good, with its terminals' tails. */
  private liveLines(): string[] {
    const lines: string[] = [];
    for (const view of this.toolCalls.values()) {
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
