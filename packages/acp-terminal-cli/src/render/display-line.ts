import stripAnsi from "strip-ansi";

/** Characters kept of any one line; longer lines end with an ellipsis. */
export const MAX_LINE_CHARS = 400;
/**
 * Bytes of one line a view decodes at most: enough for MAX_LINE_CHARS characters of up to four
 * bytes each. A longer line is shown from the part it keeps (its newest bytes while unfinished).
 */
export const MAX_LINE_BYTES = MAX_LINE_CHARS * 4;

/** True for the second half of a surrogate pair: cutting before it would leave half a character. */
function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The first `max` UTF-16 units of `text`, or one fewer so that a surrogate pair stays whole. */
export function headWhole(text: string, max: number): string {
  return text.slice(0, isLowSurrogate(text, max) ? max - 1 : max);
}

/** The last `max` UTF-16 units of `text`, or one fewer so that a surrogate pair stays whole. */
export function tailWhole(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  const start = text.length - max;
  return text.slice(isLowSurrogate(text, start) ? start + 1 : start);
}

/** One line as a terminal would show it: escape sequences gone, `\r` overwrites from the start. */
export function displayLine(raw: string): string {
  const withoutCr = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  const lastCr = withoutCr.lastIndexOf("\r");
  const visible = stripAnsi(lastCr === -1 ? withoutCr : withoutCr.slice(lastCr + 1));
  return visible.length > MAX_LINE_CHARS ? `${headWhole(visible, MAX_LINE_CHARS - 1)}…` : visible;
}
