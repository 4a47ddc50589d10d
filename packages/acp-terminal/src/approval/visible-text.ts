/**
 * The one escaping table for agent-chosen text shown to a person (questions, refusals, titles):
 * every character that renders blank, invisible or not at all is written as an escape, chosen by
 * Unicode properties rather than a list of ranges someone must remember to extend:
 * - control, format, surrogate, private-use and unassigned code points (`\p{C}`): escape
 *   sequences could redraw the question, a carriage return hide what precedes it, bidi overrides
 *   reorder what is read;
 * - every separator and white space but U+0020 (`\p{Z}`, `\p{White_Space}`): no-break, ideographic
 *   and em spaces, line and paragraph separators;
 * - default-ignorable code points: zero-width ones, variation selectors, tags, the Hangul fillers
 *   (U+115F, U+1160, U+3164, U+FFA0), which fonts draw as nothing or as blanks;
 * - U+2800, the braille blank: a symbol (`\p{So}`) that every font draws empty;
 * - a combining mark on an ASCII character or after two others (`\p{M}`): it changes how the
 *   letter before it reads (`=` with U+0338 reads `≠`), or stacks into a smear;
 * - `⟨` and `⟩`, the brackets of the run markers below, so an agent cannot forge one.
 */
const INVISIBLE =
  /(?! )[\p{C}\p{Z}\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800\u27e8\u27e9]|(?<=[\0-\x7f]|\p{M}{2})\p{M}/u;

/** A run of one such character (a run of two or more is shown with its length), or of spaces. */
const RUNS = new RegExp(`(${INVISIBLE.source})\\1*| {2,}`, "gu");

/** Where a line of the text continues on a line of the question: never mistaken for one of its own. */
const CONTINUED = "\n    │ ";

function escape(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u{${code.toString(16).padStart(4, "0")}}`;
}

/**
 * Agent-chosen text as a person can read it, whole: invisible characters escaped (`\x1b`,
 * `\u{202e}`), a run of spaces shown with its length (`⟨600 spaces⟩`) and a run of one invisible
 * character too (`⟨7000 × \u{2800}⟩`), so blanks cannot push the rest of a command out of sight;
 * a line break inside the text continues on a marked line (`    │ `), so a line of the text can
 * never pass for a line of the question (with `lines: "one"`, it stays `\x0a` on the same line).
 */
export function printable(text: string, lines: "continued" | "one" = "continued"): string {
  return text.replace(RUNS, (run: string, first: string | undefined, offset: number) => {
    if (first === undefined) {
      return `⟨${run.length} spaces⟩`;
    }
    const count = [...run].length;
    if (count > 1) {
      return `⟨${count} × ${escape(first)}⟩`;
    }
    const atEnd = offset + run.length === text.length;
    return first === "\n" && !atEnd && lines === "continued" ? `\\x0a${CONTINUED}` : escape(first);
  });
}

/** Agent-chosen text for a one-line message: printable, cut to `maxChars` with its length said. */
export function printableCut(text: string, maxChars: number): string {
  const shown = printable(text.length > maxChars ? text.slice(0, maxChars) : text, "one");
  return text.length > maxChars ? `${shown}… (${text.length} chars)` : shown;
}
