/**
 * What a terminal sends for each named key (xterm, normal cursor-key mode). Names are matched
 * without regard to case; tmux spellings (`BSpace`, `PPage`, `NPage`) are accepted as aliases.
 */
export const NAMED_KEYS: Readonly<Record<string, string>> = {
  Enter: "\r",
  Tab: "\t",
  Escape: "\x1b",
  Backspace: "\x7f",
  Space: " ",
  Up: "\x1b[A",
  Down: "\x1b[B",
  Right: "\x1b[C",
  Left: "\x1b[D",
  Home: "\x1b[H",
  End: "\x1b[F",
  PageUp: "\x1b[5~",
  PageDown: "\x1b[6~",
  Insert: "\x1b[2~",
  Delete: "\x1b[3~",
  F1: "\x1bOP",
  F2: "\x1bOQ",
  F3: "\x1bOR",
  F4: "\x1bOS",
  F5: "\x1b[15~",
  F6: "\x1b[17~",
  F7: "\x1b[18~",
  F8: "\x1b[19~",
  F9: "\x1b[20~",
  F10: "\x1b[21~",
  F11: "\x1b[23~",
  F12: "\x1b[24~",
};

export const KEY_ALIASES: Readonly<Record<string, keyof typeof NAMED_KEYS>> = {
  Return: "Enter",
  Esc: "Escape",
  BSpace: "Backspace",
  Del: "Delete",
  Ins: "Insert",
  PgUp: "PageUp",
  PPage: "PageUp",
  PgDn: "PageDown",
  NPage: "PageDown",
};

/** `C-c`, `Ctrl-C`, `ctrl+c`, `^C`. */
export const CTRL_PATTERN = /^(?:c|ctrl|control)[-+](.)$|^\^(.)$/i;
/** `M-b`, `Alt-b`, `meta+b`: Escape, then the key. */
export const META_PATTERN = /^(?:m|meta|alt)[-+](.)$/i;
/** A modifier prefix on something that is not a single character (`C-Enter`, `Shift-Tab`). */
export const MODIFIED_PATTERN = /^(?:c|ctrl|control|m|meta|alt|s|shift)[-+]\S+$/i;

/** Ctrl with a letter or one of `@ [ \ ] ^ _ ?`, or undefined for other characters. */
export function ctrlByte(char: string): string | undefined {
  if (char === "?") {
    return "\x7f";
  }
  const code = char.toUpperCase().charCodeAt(0);
  // Ctrl clears bits 5 and 6: A (0x41) → 0x01 ... _ (0x5f) → 0x1f, @ (0x40) → 0x00.
  return code >= 0x40 && code <= 0x5f ? String.fromCharCode(code & 0x1f) : undefined;
}
