/**
 * The PTY rendering the host used before its terminal emulator (`PtyScreen`): strip-ansi and `\r`
 * overwrites. Kept here as the baseline `host-pty-screen.bench.mjs` measures the emulator against;
 * it is no part of any package.
 */
import stripAnsi from "strip-ansi";
import { stripCutEscapeTail } from "../../packages/acp-terminal/dist/output/pty-text.js";

/** C0 controls other than tab, line feed, carriage return and backspace, and DEL. */
const OTHER_CONTROLS = /[\x00-\x07\x0b-\x0c\x0e-\x1f\x7f]/g;
const NEEDS_LINE_MODEL = /[\r\b]/;

/**
 * PTY output as plain text: escape sequences stripped, then each line replayed as a terminal
 * would draw it (`\r` returns to column 0 and later characters overwrite, `\b` moves one column
 * back), so `"abc\rX"` reads `"Xbc"` and `"\r\n"` is a plain newline. Other control characters
 * are dropped. Cursor movement beyond the line (escape sequences) is not emulated. `cutAtStart`:
 * the output was cut at its start (truncated), so a leading escape-sequence tail is dropped first.
 * @param {string} raw
 * @returns {string}
 */
export function renderPtyText(raw, cutAtStart = false) {
  const text = stripAnsi(cutAtStart ? stripCutEscapeTail(raw) : raw).replace(OTHER_CONTROLS, "");
  if (!NEEDS_LINE_MODEL.test(text)) {
    return text;
  }
  return text.split("\n").map(renderLine).join("\n");
}

/** @param {string} line */
function renderLine(line) {
  if (!NEEDS_LINE_MODEL.test(line)) {
    return line;
  }
  /** @type {string[]} */
  const cells = [];
  let column = 0;
  for (const char of line) {
    if (char === "\r") {
      column = 0;
    } else if (char === "\b") {
      column = Math.max(0, column - 1);
    } else {
      cells[column++] = char;
    }
  }
  return cells.join("");
}
