import { describe, expect, it } from "vitest";
import { encodeKey, encodeKeys, KEY_NAMES, UnknownKeyError } from "../src/keys/encode-keys.js";

describe("encodeKeys", () => {
  it("encodes the named keys as a terminal sends them", () => {
    expect(encodeKeys(["Enter", "Tab", "Escape", "Backspace", "Space"])).toBe("\r\t\x1b\x7f ");
    expect(encodeKeys(["Up", "Down", "Right", "Left"])).toBe("\x1b[A\x1b[B\x1b[C\x1b[D");
    expect(encodeKeys(["Home", "End", "PageUp", "PageDown", "Delete"])).toBe(
      "\x1b[H\x1b[F\x1b[5~\x1b[6~\x1b[3~",
    );
  });

  it("accepts every Ctrl spelling for every letter", () => {
    for (let i = 0; i < 26; i++) {
      const lower = String.fromCharCode(0x61 + i);
      const expected = String.fromCharCode(i + 1);
      for (const spelling of [
        `C-${lower}`,
        `Ctrl-${lower.toUpperCase()}`,
        `ctrl+${lower}`,
        `^${lower.toUpperCase()}`,
      ]) {
        expect(encodeKey(spelling), spelling).toBe(expected);
      }
    }
    expect(encodeKeys(["C-c"])).toBe("\x03");
    expect(encodeKeys(["Ctrl-D"])).toBe("\x04");
    expect(encodeKeys(["C-["])).toBe("\x1b");
    expect(encodeKeys(["M-b"])).toBe("\x1bb");
  });

  it("matches names without regard to case and accepts tmux aliases", () => {
    expect(encodeKeys(["enter", "ESCAPE", "pgup", "BSpace"])).toBe("\r\x1b\x1b[5~\x7f");
  });

  it("passes text through as typed, between keys", () => {
    expect(encodeKeys(["echo hi", "Enter"])).toBe("echo hi\r");
    expect(encodeKeys(["y", "ls -la | wc -l", "Enter"])).toBe("yls -la | wc -l\r");
    expect(encodeKeys([{ text: "Enter" }, "Enter"])).toBe("Enter\r");
    expect(encodeKeys([])).toBe("");
  });

  it("rejects a mistyped name with the list of valid ones", () => {
    const attempt = (keys: string[]) => () => encodeKeys(keys);
    expect(attempt(["Entr"])).toThrow(UnknownKeyError);
    expect(attempt(["Entr"])).toThrow(/did you mean Enter\?/);
    expect(attempt(["C-Enter"])).toThrow(/Unknown key name "C-Enter"/);
    expect(attempt(["Shift-Tab"])).toThrow(/Valid names: Enter, Tab, Escape/);
    expect(attempt(["^Cx"])).toThrow(UnknownKeyError);
    try {
      encodeKeys(["PageUpp"]);
      expect.unreachable("PageUpp is not a key");
    } catch (error) {
      expect(error).toBeInstanceOf(UnknownKeyError);
      expect((error as UnknownKeyError).key).toBe("PageUpp");
      expect((error as UnknownKeyError).message).toContain('{ text: "PageUpp" }');
    }
  });

  it("lists the Ctrl forms among the valid names", () => {
    expect(KEY_NAMES.some((name) => name.includes("C-a"))).toBe(true);
  });
});
