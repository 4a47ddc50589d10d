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
