import type { ExitStatus } from "acp-terminal";
import { printable } from "acp-terminal/internal";
import type { BackgroundItem, DiffShown, PlanItem } from "../view/renderer.js";
import { diffLines } from "../view/diff-lines.js";
import { formatExitStatus } from "./format.js";
import { headWhole, MAX_LINE_CHARS } from "./display-line.js";
import type { OutputLines } from "./output-lines.js";
import type { LineCount, TailView } from "./tail-view.js";

export type { LineCount, TailView } from "./tail-view.js";

/** Lines of one terminal printed as they arrive when piped; after that only the final tail. */
export const PLAIN_STREAM_LINES = 200;
/** On a TTY, a terminal printed for good shows its first lines too, as many as its tail. */
export const TTY_HEAD_LINES = 10;
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
   * A pipe terminal of the CLI's: the display's own view of its output (first lines, newest lines,
   * what lies between), from which the first PLAIN_STREAM_LINES are printed as they come when
   * piped; undefined for a screen (an agent's terminal, a PTY), whose lines are not final until it
   * ends: its tail is printed then.
   */
  lines: OutputLines | undefined;
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
  marker: Marker = "earlier",
): string[] {
  const lines = hidden.lines > 0 ? [leftOutLine(hidden, marker)] : [];
  return [...lines, ...tail.tail().map((line) => GUTTER + line)];
}

/** How a marker reads: lines before the ones shown, or lines between what was shown. */
type Marker = "earlier" | "not shown";

/** `  │ … 199790 lines (1286892 bytes) not shown`: the exact count (and bytes, when known). */
function leftOutLine({ lines, bytes }: LineCount, marker: Marker): string {
  const noun = lines === 1 ? "line" : "lines";
  const size = bytes === undefined ? "" : ` (${bytes} ${bytes === 1 ? "byte" : "bytes"})`;
  return marker === "earlier"
    ? `${GUTTER}… ${lines} earlier ${noun}${size}`
    : `${GUTTER}… ${lines} ${noun}${size} not shown`;
}

/**
 * A terminal's closing lines, then how it ended. A pipe terminal of the CLI's shows its first
 * lines (piped: those not printed as they came), one line saying exactly how many lines (and bytes)
 * lie between, and its newest lines; a screen shows its tail (on a TTY the whole of it, since the
 * live region is erased; piped, the same).
 */
export function finalLines(term: TerminalView, tty: boolean): string[] {
  const { lines: output, tail } = term;
  let lines: string[];
  if (output === undefined) {
    lines = tailLines(tail, tail.hiddenLines(), tty ? "not shown" : "earlier");
  } else {
    // Piped, the first lines were printed as they came: the rest follows them.
    const head = tty ? output.head(TTY_HEAD_LINES) : [];
    const shown = tty ? head.length : term.streamed;
    const leftOut = output.leftOut(shown, output.tailLines);
    lines = [
      ...head.map((line) => GUTTER + line),
      ...(leftOut.lines > 0 ? [leftOutLine(leftOut, "not shown")] : []),
      ...output.tail(output.tailLines, shown).map((line) => GUTTER + line),
    ];
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
