import stripAnsi from "strip-ansi";

/** C0 controls other than tab, line feed, carriage return and backspace, and DEL. */
const OTHER_CONTROLS = /[\x00-\x07\x0b-\x0c\x0e-\x1f\x7f]/g;
const NEEDS_LINE_MODEL = /[\r\b]/;

/**
 * PTY output as plain text: escape sequences stripped, then each line replayed as a terminal
 * would draw it (`\r` returns to column 0 and later characters overwrite, `\b` moves one column
 * back), so `"abc\rX"` reads `"Xbc"` and `"\r\n"` is a plain newline. Other control characters
 * are dropped. Cursor movement beyond the line (escape sequences) is not emulated.
 */
export function renderPtyText(raw: string): string {
  const text = stripAnsi(raw).replace(OTHER_CONTROLS, "");
  if (!NEEDS_LINE_MODEL.test(text)) return text;
  return text.split("\n").map(renderLine).join("\n");
}

function renderLine(line: string): string {
  if (!NEEDS_LINE_MODEL.test(line)) return line;
  const cells: string[] = [];
  let column = 0;
  for (const char of line) {
    if (char === "\r") column = 0;
    else if (char === "\b") column = Math.max(0, column - 1);
    else cells[column++] = char;
  }
  return cells.join("");
}
