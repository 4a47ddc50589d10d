import { describe, expect, it } from "vitest";
import { fitOutputToBudget, outputBudgetBytes } from "../src/rpc/fit-output.js";

const escapedSize = (s: string) => Buffer.byteLength(JSON.stringify(s)) - 2;

describe("fitOutputToBudget", () => {
  it("leaves output that fits untouched, at exactly the budget too", () => {
    expect(fitOutputToBudget("hello", 5)).toEqual({ output: "hello", trimmedBytes: 0 });
    const control = "\x01".repeat(10); // 60 escaped bytes
    expect(fitOutputToBudget(control, 60)).toEqual({ output: control, trimmedBytes: 0 });
  });

  it("drops from the front until the escaped tail fits: N-1, N, N+1", () => {
    const text = "\x01".repeat(10) + "end";
    expect(escapedSize(text)).toBe(63);
    expect(fitOutputToBudget(text, 63).output).toBe(text);
    expect(fitOutputToBudget(text, 62)).toEqual({
      output: "\x01".repeat(9) + "end",
      trimmedBytes: 1,
    });
    expect(fitOutputToBudget(text, 64).output).toBe(text);
  });

  it("counts JSON escapes exactly and never splits a surrogate pair", () => {
    const text = 'a"\\\n\t\x1bé€😀';
    expect(fitOutputToBudget(text, escapedSize(text)).output).toBe(text);
    expect(fitOutputToBudget("x😀", 5).output).toBe("x😀");
    const fitted = fitOutputToBudget("x😀", 4);
    expect(fitted).toEqual({ output: "😀", trimmedBytes: 1 });
    expect(fitOutputToBudget("x😀", 3)).toEqual({ output: "", trimmedBytes: 5 });
  });

  it("fits 8 MiB of escape bytes into a 32 MiB message", () => {
    const flood = "\x1b".repeat(8 * 1024 * 1024);
    const budget = outputBudgetBytes(32 * 1024 * 1024);
    const fitted = fitOutputToBudget(flood, budget);
    expect(escapedSize(fitted.output)).toBeLessThanOrEqual(budget);
    expect(escapedSize(fitted.output)).toBeGreaterThan(budget - 6);
    expect(fitted.trimmedBytes + fitted.output.length).toBe(flood.length);
  });
});
