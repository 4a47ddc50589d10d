import stripAnsi from "strip-ansi";

/** C0 controls other than tab, line feed, carriage return and backspace, and DEL. */
const OTHER_CONTROLS = /[\x00-\x07\x0b-\x0c\x0e-\x1f\x7f]/g;
const NEEDS_LINE_MODEL = /[\r\b]/;

/**
 * What the start of PTY output can look like when the cut that truncated it fell inside a CSI
 * sequence (`ESC [ params final`): `[0m`, `38;5;196m` (parameters with a `;`), an SGR tail
 * (`196m`), or a lone tail right before the next escape or line end (`0m\n`, `m\n`).
 */
const CSI_TAIL =
  /^(?:\[[0-?]*[ -/]*[@-~]|[0-?]*;[0-?]*[@-~]|[0-9:;]*[0-9]m|[0-?]*[@-~](?=[\x1b\r\n]|$))/;
/** The end of an OSC/DCS string (title, hyperlink): BEL or ST (`ESC \`). */
const STRING_END = /\x07|\x1b\\/;

/**
 * Drops the tail of an escape sequence that a cut at the start of PTY output left behind, so it
 * does not show as text (`m`, `0m`, `[0m`, `8;5;196mred`). A heuristic, since the bytes before the
 * cut are gone: an OSC tail is recognised by its terminator before any line end or other escape;
 * a lone final letter followed by text (`mred`) cannot be told from text and stays.
 */
export function stripCutEscapeTail(raw: string): string {
  const stringEnd = STRING_END.exec(raw);
  if (stringEnd) {
    const before = raw.slice(0, stringEnd.index);
    if (!/[\x1b\n]/.test(before)) {
      return raw.slice(stringEnd.index + stringEnd[0].length);
    }
  }
  const csi = CSI_TAIL.exec(raw);
  return csi ? raw.slice(csi[0].length) : raw;
}

/**
 * PTY output as plain text: escape sequences stripped, then each line replayed as a terminal
 * would draw it (`\r` returns to column 0 and later characters overwrite, `\b` moves one column
 * back), so `"abc\rX"` reads `"Xbc"` and `"\r\n"` is a plain newline. Other control characters
 * are dropped. Cursor movement beyond the line (escape sequences) is not emulated. `cutAtStart`:
 * the output was cut at its start (truncated), so a leading escape-sequence tail is dropped first.
 */
export function renderPtyText(raw: string, cutAtStart = false): string {
  const text = stripAnsi(cutAtStart ? stripCutEscapeTail(raw) : raw).replace(OTHER_CONTROLS, "");
  if (!NEEDS_LINE_MODEL.test(text)) {
    return text;
  }
  return text.split("\n").map(renderLine).join("\n");
}

function renderLine(line: string): string {
  if (!NEEDS_LINE_MODEL.test(line)) {
    return line;
  }
  const cells: string[] = [];
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
