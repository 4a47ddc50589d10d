import { describe, expect, it } from "vitest";
import { renderPtyText } from "../src/output/pty-text.js";

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
