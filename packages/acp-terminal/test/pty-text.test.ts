import { describe, expect, it } from "vitest";
import { stripCutEscapeTail } from "../src/output/pty-text.js";

describe("stripCutEscapeTail (PTY output cut at its start)", () => {
  it.each([
    ["m\r\nnext", "\r\nnext"],
    ["0m\nnext", "\nnext"],
    ["[0m\nnext", "\nnext"],
    ["8;5;196mred", "red"],
    ["196mred", "red"],
    ["0;title\u0007text", "text"],
    ["title\u001b\\text", "text"],
    ["plain words\n", "plain words\n"],
    ["ok\n", "ok\n"],
    ["123 passed\n", "123 passed\n"],
    ["mred", "mred"],
  ])("%j → %j", (raw, text) => {
    expect(stripCutEscapeTail(raw)).toBe(text);
  });
});
