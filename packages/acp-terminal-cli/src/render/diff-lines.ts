import type { DiffShown } from "../view/renderer.js";
import { headWhole, MAX_LINE_CHARS } from "./display-line.js";
import { unifiedDiff } from "./unified-diff.js";

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

/**
 * What can hide text or move the cursor, escaped: C0 and C1 controls (a tab becomes spaces),
 * bidirectional overrides and isolates, zero-width characters. Spaces stay as they are: they
 * are the indentation of code.
 */
const HIDING =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

function visible(text: string): string {
  return text
    .replaceAll("\t", "    ")
    .replace(HIDING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function shaped(line: string, color: boolean, width: number): string {
  const text = visible(line);
  const cut = text.length > width ? `${headWhole(text, width - 1)}…` : text;
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
