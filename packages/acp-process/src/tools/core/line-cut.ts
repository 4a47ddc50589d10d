/**
 * Where a head-and-tail cut falls. A model reads what it is shown line by line, so a cut keeps
 * whole lines: the head ends after a line break and the tail starts after one, when a line break
 * lies within LINE_SEARCH_BYTES of the budget's edge (the answer is then up to that much shorter
 * than its budget). A line longer than that is cut where the budget ends, on a character
 * boundary, and the cut says the line is partial. Offsets stay exact: the marker names the bytes
 * that really were left out.
 */

/** How far back (head) or forward (tail) from the budget's edge a cut looks for a line break. */
export const LINE_SEARCH_BYTES = 4096;
const NEWLINE = 0x0a;

/** Which of the lines around a marker are cut partway: the one before it, the one after it, or both. */
export type PartialLines = "before" | "after" | "both";

/** The end of a head that may keep all of `bytes`: after its last line break near the end, else all of it (a partial line). */
export function headEnd(bytes: Uint8Array): { end: number; partial: boolean } {
  if (bytes.length === 0 || bytes[bytes.length - 1] === NEWLINE) {
    return { end: bytes.length, partial: false };
  }
  const at = bytes.lastIndexOf(NEWLINE);
  return at >= 0 && at >= bytes.length - 1 - LINE_SEARCH_BYTES
    ? { end: at + 1, partial: false }
    : { end: bytes.length, partial: true };
}

/**
 * The start of a tail within `bytes` that may begin at index `edge` (the budget's edge; the bytes
 * before it, when given, are only looked at): at `edge` when a line starts there (`startsLine`
 * says so for `edge` 0), else after the first line break within LINE_SEARCH_BYTES, else at `edge`
 * moved to a character boundary (a partial line). A line break that would leave nothing is not used.
 */
export function tailStart(
  bytes: Uint8Array,
  edge: number,
  startsLine: boolean,
): { start: number; partial: boolean } {
  if (edge >= bytes.length || (edge === 0 ? startsLine : bytes[edge - 1] === NEWLINE)) {
    return { start: edge, partial: false };
  }
  const at = bytes.indexOf(NEWLINE, edge);
  if (at >= 0 && at < edge + LINE_SEARCH_BYTES && at + 1 < bytes.length) {
    return { start: at + 1, partial: false };
  }
  let start = edge;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) {
    start++;
  }
  return { start, partial: true };
}

/** The partial lines of a cut, from whether its head's end and its tail's start are partial. */
export function partialLines(head: boolean, tail: boolean): PartialLines | undefined {
  return head ? (tail ? "both" : "before") : tail ? "after" : undefined;
}

/** What a marker says of the partial lines around it. */
export function partialNote(partial: PartialLines): string {
  switch (partial) {
    case "before":
      return "the line above this mark is partial (cut where it has no line break near the cut)";
    case "after":
      return "the line below this mark is partial (it starts partway)";
    case "both":
      return "the lines above and below this mark are partial (cut where they have no line break near the cut)";
  }
}
