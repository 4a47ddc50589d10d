import type { DiffShown } from "../view/renderer.js";
import { printable } from "acp-terminal/approval";
import { unifiedDiff } from "./unified-diff.js";

/** Characters of a diff line shown at most (as for any line the text view shows). */
const MAX_LINE_CHARS = 400;
/** Lines of diff shown under one tool call (or one question) at most. */
export const MAX_DIFF_LINES = 40;
/** Characters of a patch read at most (a bigger one is shown by its first lines). */
const MAX_PATCH_CHARS = 1024 * 1024;

const GREEN = "\x1b[32m";
const RED = "\x1b[31m";
const CYAN = "\x1b[36m";
const RESET = "\x1b[39m";

/**
 * File changes as a person reviews them: per file a line `┄ path (+2 −1)`, then a unified diff
 * (`@@` hunks, `+` and `-` lines; coloured green, red and cyan on a TTY), every line printable
 * (control characters escaped) and cut to the display width; at most `maxLines` in all, then
 * `… N more diff lines`. A patch is shown from its first hunk; texts before and after are diffed
 * here (a new file is all `+`).
 */
export function diffLines(
  diffs: readonly DiffShown[],
  options: { color: boolean; maxLines?: number; maxLineChars?: number; indent?: string },
): string[] {
  const maxLines = options.maxLines ?? MAX_DIFF_LINES;
  const width = options.maxLineChars ?? MAX_LINE_CHARS;
  const indent = options.indent ?? "  ";
  const out: string[] = [];
  let hidden = 0;
  for (const diff of diffs) {
    const { lines, summary } = linesOfDiff(diff);
    const block = [
      `${indent}┄ ${visible(diff.path) || "(a file)"} ${summary}`,
      ...lines.map((line) => `${indent}  ${shaped(line, options.color, width)}`),
    ];
    const room = Math.max(0, maxLines - out.length);
    out.push(...block.slice(0, room));
    hidden += Math.max(0, block.length - room);
  }
  if (hidden > 0) {
    out.push(`${indent}… ${hidden} more diff line${hidden === 1 ? "" : "s"}`);
  }
  return out;
}

/** The diff lines of one change, and its `(+a −r)` summary. */
function linesOfDiff(diff: DiffShown): { lines: string[]; summary: string } {
  let lines: string[];
  if ("patch" in diff) {
    const patch = diff.patch.slice(0, MAX_PATCH_CHARS).split("\n");
    const firstHunk = patch.findIndex((line) => line.startsWith("@@"));
    lines = (firstHunk === -1 ? patch : patch.slice(firstHunk)).filter(
      (line) => line !== "" && !/^\*\*\* (Begin|End) Patch/.test(line),
    );
  } else {
    const diffed = unifiedDiff(diff.oldText ?? "", diff.newText);
    if (diffed === undefined) {
      return { lines: [], summary: "(too big to diff here)" };
    }
    lines = diffed;
  }
  const added = lines.filter((line) => line.startsWith("+") && !line.startsWith("+++")).length;
  const removed = lines.filter((line) => line.startsWith("-") && !line.startsWith("---")).length;
  const isNew =
    "patch" in diff
      ? /^(new file mode|--- \/dev\/null|\*\*\* Add File:)/m.test(diff.patch)
      : diff.oldText === null;
  return { lines, summary: isNew ? `(new file, +${added})` : `(+${added} −${removed})` };
}

/** Spaces of a line's indentation kept as they are (more are counted by printable's marker). */
const MAX_INDENT = 32;

/**
 * A line of a diff as a person reads it: its indentation as it is (leading tabs as four spaces,
 * up to MAX_INDENT), the rest through acp-terminal's one escaping table (`printable`: what
 * renders blank or moves the cursor escaped, a run of spaces shown with its length).
 */
function visible(text: string): string {
  const leading = /^[ \t]*/.exec(text)?.[0] ?? "";
  const indent = leading.replaceAll("\t", "    ");
  return (
    indent.slice(0, MAX_INDENT) +
    printable(indent.slice(MAX_INDENT) + text.slice(leading.length), "one")
  );
}

function shaped(line: string, color: boolean, width: number): string {
  // The indentation is the code's, after the line's mark (` `, `+`, `-`).
  const mark = /^[ +-]/.test(line) ? line[0]! : "";
  const text = mark + visible(line.slice(mark.length));
  const cut =
    text.length > width ? `${[...text.slice(0, width)].slice(0, width - 1).join("")}…` : text;
  if (!color) {
    return cut;
  }
  const tint = cut.startsWith("+")
    ? GREEN
    : cut.startsWith("-")
      ? RED
      : cut.startsWith("@@")
        ? CYAN
        : "";
  return tint === "" ? cut : `${tint}${cut}${RESET}`;
}
