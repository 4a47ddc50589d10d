const LINE_FEED = 0x0a;
const SPACE = 0x20;
const TILDE = 0x7e;

/**
 * The text the terminal emulator renders (`PtyScreen` with `convertEol`) for plain output, without
 * one: when the bytes are only printable ASCII and line feeds, and no line is wider than the
 * screen (`cols`), the screen shows them as they are (spaces written are kept; output ending in a
 * line feed ends in "\n"). Undefined for anything else (a control character, an escape sequence,
 * a byte of a multi-byte character, a line that would wrap), which the emulator must draw.
 *
 * Most commands an agent runs write plain text to a pipe. For a terminal that exits never drawn
 * (piped output, `--json`) this costs a scan, where a fresh emulator costs ~3 ms a terminal and,
 * in a new process, ~100 ms for its first 64 KiB (its parser not yet compiled).
 */
export function plainScreenText(bytes: Uint8Array, cols: number): string | undefined {
  let lineStart = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === LINE_FEED) {
      if (i - lineStart > cols) {
        return undefined;
      }
      lineStart = i + 1;
    } else if (byte < SPACE || byte > TILDE) {
      return undefined;
    }
  }
  if (bytes.length - lineStart > cols) {
    return undefined;
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
