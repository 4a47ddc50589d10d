// The benchmark's baseline renderer (pty-text.mjs): what it renders, and that with the library's
// stripCutEscapeTail it leaves no fragment of an escape sequence cut at the start.
import { describe, expect, it } from "vitest";
import { renderPtyText } from "./pty-text.mjs";

describe("renderPtyText", () => {
  it.each([
    ["abc\rX", "Xbc"],
    ["line\r\nnext\r\n", "line\nnext\n"],
    ["progress 10%\rprogress 100%\r\n", "progress 100%\n"],
    ["abc\b\bX", "aXc"],
    ["\u001b[31mred\u001b[0m plain", "red plain"],
    ["\u001b]0;title\u0007text", "text"],
    ["bell\u0007 and nul\u0000", "bell and nul"],
    ["tab\tkept", "tab\tkept"],
    ["😀x\r😃", "😃x"],
  ])("%j → %j", (raw, text) => {
    expect(renderPtyText(raw)).toBe(text);
  });
});

describe("renderPtyText of PTY output cut at its start", () => {
  const line = "\u001b[38;5;196mred\u001b[0m\r\n";
  it("leaves no fragment of a colour sequence, wherever the cut falls in it", () => {
    for (let start = 0; start < line.length; start++) {
      const text = renderPtyText(line.slice(start) + line, true);
      // The cut line may lose letters of "red" (or keep a lone final "m"), never show parameters.
      expect(text, `cut at ${start}`).toMatch(/^(m?r?e?d?)?\n?red\n$/);
      expect(text, `cut at ${start}`).not.toMatch(/[0-9;[]/);
    }
  });

  it("is applied only to output cut at its start", () => {
    expect(renderPtyText("0m\n", false)).toBe("0m\n");
    expect(renderPtyText("0m\n", true)).toBe("\n");
  });
});
