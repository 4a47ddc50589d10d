import type { ExitStatus } from "acp-terminal";
import { printable } from "acp-terminal/internal";
import type { BackgroundItem, DiffShown, PlanItem } from "../view/renderer.js";
import { diffLines } from "./diff-lines.js";
import { formatExitStatus } from "./format.js";
import { headWhole, MAX_LINE_CHARS } from "./display-line.js";
import type { LineStream } from "./line-stream.js";
import type { LineCount } from "./terminal-tail.js";

/** The newest lines of a terminal, as a tail shows them (a pipe's byte stream's or a screen's). */
export interface TailView {
  readonly partialLine: string | undefined;
  tail(): string[];
  completedLines(): LineCount;
  hiddenLines(): LineCount;
  /** Nothing more will be drawn live: keep only what the tail shows. */
  freeze(): void;
}

/** Lines of one terminal printed as they arrive when piped; after that only the final tail. */
export const PLAIN_STREAM_LINES = 200;
/** Lines of a tool call's text content shown when it has no terminal. */
const TEXT_LINES = 10;
export const GUTTER = "  │ ";

export interface ToolCallView {
  title: string;
  /** `pending`, `in_progress`, `completed`, `failed`, or another a version adds (`cancelled`). */
  status: string;
  terminalIds: string[];
  /** Terminals its content embeds that have not appeared yet (an agent may report one late). */
  awaited: string[];
  /** The tool call's text content, shown when it has no terminal. */
  text?: string | undefined;
  /** The file changes its content shows. */
  diffs?: DiffShown[] | undefined;
  /** The edit its raw input describes, shown when its content has no diff. */
  inputDiff?: DiffShown | undefined;
  /** Printed for good (on a TTY: moved out of the live region). */
  committed: boolean;
}

export interface TerminalView {
  tail: TailView;
  /**
   * Piped: its complete lines in order, for the first PLAIN_STREAM_LINES printed as they come;
   * undefined for a screen (an agent's terminal, a PTY), whose lines are not final until it ends:
   * its tail is printed then.
   */
  lines: Pick<LineStream, "take" | "skippedBytes"> | undefined;
  exitStatus?: ExitStatus;
  released: boolean;
  toolCallId?: string;
  /** Piped: complete lines printed as they came (at most PLAIN_STREAM_LINES). */
  streamed: number;
  /** What it runs, for a line about it printed apart from its tool call. */
  label?: string;
}

export const DONE: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

export function header(view: ToolCallView): string {
  const mark =
    view.status === "completed"
      ? "✓"
      : view.status === "failed" || view.status === "cancelled"
        ? "✗"
        : "▸";
  return `${mark} ${view.title} [${view.status}]`;
}

/**
 * Piped, a tool call's header is printed when it starts and again when its header changes, except
 * for `pending` → `in_progress` with nothing printed since its header (`onTop`): that line would
 * only repeat the one above it. (Its final status is printed when it ends.)
 */
export function headerRepeats(before: ToolCallView, after: ToolCallView, onTop: boolean): boolean {
  if (header(before) === header(after)) {
    return true;
  }
  const quietStart =
    before.status === "pending" && after.status === "in_progress" && before.title === after.title;
  return quietStart && onTop;
}

/** The line that says what the agent runs in the background: its kind, id and label each. */
export function backgroundLine(items: readonly BackgroundItem[]): string {
  const names = items.map((item) => {
    const id = item.terminalId ?? item.toolCallId;
    const what =
      item.type === "terminal" ? "terminal" : item.type === "tool_call" ? "tool call" : item.type;
    return `${what}${id === undefined ? "" : ` ${id}`}${item.label === undefined ? "" : ` (${item.label})`}`;
  });
  return `⋯ background: ${names.length === 0 ? "none" : names.join(", ")}`;
}

/** A tool call's file changes as a bounded unified diff (coloured on a TTY). */
export function changeLines(view: ToolCallView, color: boolean): string[] {
  const diffs =
    view.diffs !== undefined && view.diffs.length > 0
      ? view.diffs
      : view.inputDiff === undefined
        ? []
        : [view.inputDiff];
  return diffs.length === 0 ? [] : diffLines(diffs, { color });
}

/** A tool call's text (when it has no terminal to show instead): its last lines, indented. */
export function textLines(view: ToolCallView): string[] {
  if (view.terminalIds.length > 0 || view.text === undefined) {
    return [];
  }
  const lines = view.text.trimEnd().split("\n");
  const shown = lines
    .slice(-TEXT_LINES)
    .map(
      (line) =>
        `  ${line.length > MAX_LINE_CHARS ? `${headWhole(line, MAX_LINE_CHARS - 1)}…` : line}`,
    );
  return lines.length > TEXT_LINES
    ? [`  … ${lines.length - TEXT_LINES} earlier lines`, ...shown]
    : shown;
}

/** The tail of a terminal as display lines, with a marker for what it no longer shows. */
export function tailLines(
  tail: TailView,
  hidden: LineCount = tail.hiddenLines(),
  marker = "earlier lines",
): string[] {
  const lines =
    hidden.lines > 0 || !hidden.exact ? [`${GUTTER}… ${countWords(hidden)} ${marker}`] : [];
  return [...lines, ...tail.tail().map((line) => GUTTER + line)];
}

/** "12", or "at least 12" when output went by faster than it was counted ("more" for none counted). */
function countWords({ lines, exact }: LineCount): string {
  if (exact) {
    return String(lines);
  }
  return lines > 0 ? `at least ${lines}` : "more";
}

/**
 * A terminal's closing lines: what the reader has not seen of its output (on a TTY the whole
 * tail, since the live region is erased; piped, the unfinished last line, or the tail when
 * streaming stopped at the cap or skipped output), then how it ended.
 */
export function finalLines(term: TerminalView, tty: boolean): string[] {
  const { tail } = term;
  let lines: string[] = [];
  if (tty) {
    lines = tailLines(tail, tail.hiddenLines(), "lines not shown");
  } else if (term.lines === undefined) {
    lines = tailLines(tail);
  } else {
    const completed = tail.completedLines();
    const notStreamed = {
      lines: Math.max(0, completed.lines - term.streamed),
      exact: completed.exact && term.lines.skippedBytes === 0,
    };
    if (notStreamed.lines > 0 || !notStreamed.exact) {
      lines = tailLines(tail, notStreamed, "lines not shown");
    } else if (tail.partialLine !== undefined) {
      lines = [GUTTER + tail.partialLine];
    }
  }
  const ended =
    term.exitStatus !== undefined
      ? formatExitStatus(term.exitStatus)
      : term.released
        ? "released"
        : "still running";
  return [...lines, `  └ ${ended}`];
}

/** Entries of a plan shown at most. */
const MAX_PLAN_ENTRIES = 50;

/** The agent's plan as a block: a mark per entry's status, its words on one visible line. */
export function planLines(items: readonly PlanItem[]): string[] {
  const marks: Record<string, string> = { completed: "✓", in_progress: "▸", pending: "○" };
  const shown = items.slice(0, MAX_PLAN_ENTRIES).map((item) => {
    const words = printable(item.content);
    const line = words.length > MAX_LINE_CHARS ? `${headWhole(words, MAX_LINE_CHARS - 1)}…` : words;
    return `  ${Object.hasOwn(marks, item.status) ? marks[item.status] : "·"} ${line}`;
  });
  const more =
    items.length > MAX_PLAN_ENTRIES ? [`  … ${items.length - MAX_PLAN_ENTRIES} more`] : [];
  return ["◆ plan", ...shown, ...more];
}
