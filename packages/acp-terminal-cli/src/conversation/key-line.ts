/** Characters of a line typed outside readline kept; more are dropped. */
export const MAX_KEY_LINE_CHARS = 64 * 1024;

/** A key as Node's `emitKeypressEvents` decodes it. */
export interface Key {
  name?: string | undefined;
  sequence?: string | undefined;
  ctrl?: boolean | undefined;
  meta?: boolean | undefined;
}

/** What a key did to the line. */
export type KeyEffect =
  | { kind: "typed" }
  | { kind: "submitted"; line: string }
  | { kind: "cleared" }
  | { kind: "interrupt" }
  | { kind: "recall" }
  | { kind: "none" };

/**
 * A line typed key by key while readline is not prompting (during a turn, or answering a
 * question): printable keys add to it, Backspace and Ctrl-U take away, Enter submits it (inside a
 * bracketed paste, Enter is a line break of the same line), Ctrl-C clears it, or, when it is
 * empty, is an interrupt; Up on an empty line asks for the last queued line back.
 */
export class KeyLine {
  text = "";
  #pasting = false;

  key(typed: string | undefined, key: Key | undefined): KeyEffect {
    const name = key?.name;
    if (name === "paste-start" || name === "paste-end") {
      this.#pasting = name === "paste-start";
      return { kind: "none" };
    }
    if (key?.ctrl === true && name === "c") {
      if (this.text === "") {
        return { kind: "interrupt" };
      }
      this.text = "";
      return { kind: "cleared" };
    }
    if (key?.ctrl === true && name === "u") {
      this.text = "";
      return { kind: "cleared" };
    }
    if (name === "return" || name === "enter") {
      if (this.#pasting) {
        return this.#add("\n");
      }
      const line = this.text;
      this.text = "";
      return { kind: "submitted", line };
    }
    if (name === "backspace") {
      this.text = [...this.text].slice(0, -1).join("");
      return { kind: "typed" };
    }
    if (name === "up" && this.text === "") {
      return { kind: "recall" };
    }
    if (key?.ctrl === true || key?.meta === true || typed === undefined) {
      return { kind: "none" };
    }
    // Escape sequences of keys with no meaning here (arrows, function keys) start with ESC.
    if (typed.startsWith("\x1b") || /[\u0000-\u0008\u000b-\u001f\u007f]/.test(typed)) {
      return { kind: "none" };
    }
    return this.#add(typed === "\t" ? " " : typed);
  }

  #add(text: string): KeyEffect {
    if (this.text.length + text.length > MAX_KEY_LINE_CHARS) {
      return { kind: "none" };
    }
    this.text += text;
    return { kind: "typed" };
  }
}
