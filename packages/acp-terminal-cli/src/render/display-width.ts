/** Code point ranges a terminal draws two columns wide (East Asian Wide/Fullwidth, emoji). */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

function columnsOf(codePoint: number): number {
  return WIDE.some(([from, to]) => codePoint >= from && codePoint <= to) ? 2 : 1;
}

/** Columns `text` takes on a terminal. */
export function columnsWide(text: string): number {
  let used = 0;
  for (const char of text) {
    used += columnsOf(char.codePointAt(0)!);
  }
  return used;
}

/**
 * Cuts `line` to at most `width` terminal columns, ending with "…" when cut, so that a redrawn
 * line never wraps (a wrapped line would throw off the count of lines to move back up).
 */
export function fitColumns(line: string, width: number): string {
  if (columnsWide(line) <= width) {
    return line;
  }
  let used = 0;
  let end = 0;
  for (const char of line) {
    const columns = columnsOf(char.codePointAt(0)!);
    if (used + columns > width - 1) {
      break;
    }
    used += columns;
    end += char.length;
  }
  return `${line.slice(0, end)}…`;
}
