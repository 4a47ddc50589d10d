// How JSON strings escape what is below 0x80, as tables for the writers that escape output into
// bytes themselves (`--json` output lines, long answers to the agent) instead of JSON.stringify.

/** What a code below 0x80 becomes: 0 itself, 0xff `\u00XX`, else `\` and this letter. */
export const ASCII_ESCAPES = new Uint8Array(0x80);
for (let code = 0; code < 0x20; code++) {
  ASCII_ESCAPES[code] = 0xff;
}
for (const [code, letter] of [
  [0x08, "b"],
  [0x09, "t"],
  [0x0a, "n"],
  [0x0c, "f"],
  [0x0d, "r"],
  [0x22, '"'],
  [0x5c, "\\"],
] as const) {
  ASCII_ESCAPES[code] = letter.charCodeAt(0);
}

/** The hexadecimal digits of `\uXXXX`, as bytes. */
export const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");
