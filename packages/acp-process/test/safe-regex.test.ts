import { describe, expect, it } from "vitest";
import { unsafeRegexReason } from "../src/runs/output/safe-regex.js";
import { WatcherSet } from "../src/runs/output/watchers.js";
import { localRig } from "./support.js";

describe("unsafeRegexReason", () => {
  it.each([
    ["(a+)+$", /nested quantifier/],
    ["^(\\w*x)*$", /nested quantifier/],
    ["(a{2,})+", /nested quantifier/],
    ["((ab)+c)*", /nested quantifier/],
    ["(?:a+){2,5}", /nested quantifier/],
    ["(a|ab)+", /alternatives/],
    ["(\\w|\\d)*$", /alternatives/],
    ["(A|a)+", /alternatives/, "i"],
    ["(a|)+", /alternatives/],
    ["(.|\\n)*x", /alternatives/],
    ["(a)\\1", /backreference/],
    ["(?<q>['\"]).*\\k<q>", /backreference/],
    ["(?<=a+)b", /lookbehind/],
    ["(?<!x*)b", /lookbehind/],
    [".*a.*b", /two open-ended repeats/],
    ["a*a*b", /two open-ended repeats/],
    ["\\d+\\d+$", /two open-ended repeats/],
    ["error: .*failed.*", /two open-ended repeats/],
    ["[a-z]{0,1000}x.+", /two open-ended repeats/],
    ["\\s*-?\\s*x", /two open-ended repeats/],
  ])("refuses %s", (pattern, reason, flags = "") => {
    expect(unsafeRegexReason(pattern, flags)).toMatch(reason);
  });

  it.each([
    "^Listening on (\\d+)$",
    "error: .*",
    "ERR\\d+",
    "(foo|bar)+",
    "(ab?)+",
    "(?:a{1,1})+",
    "[(a+)+]",
    "\\(a+\\)+",
    "(?<=ab)c",
    "(?<name>\\d+)-\\d+",
    "\\u{1F600}+",
    "(a|b){3}",
    "x{2}",
    "\\w+=\\d+",
    "a+b+",
    ".{0,64}a.*b",
    "^\\s*\\d+\\s*$",
    "error: .*failed",
    "(foo|bar).*",
  ])("accepts %s", (pattern) => {
    expect(unsafeRegexReason(pattern)).toBeNull();
  });
});

describe("watchers refuse catastrophic patterns", () => {
  it("add() refuses (a+)+$ with invalid_params naming the problem and a simpler pattern", () => {
    const watchers = new WatcherSet();
    expect(() => watchers.add({ regex: "(a+)+$" })).toThrow(
      expect.objectContaining({
        code: "invalid_params",
        message: expect.stringMatching(/\(a\+\)\+\$.*nested quantifier.*simpler pattern/),
      }),
    );
    expect(watchers.size).toBe(0);
  });

  it("a run started with (a+)+$ is refused before it starts", async () => {
    const rig = localRig();
    try {
      await expect(
        rig.manager.start({
          sessionId: "s",
          command: "printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\\n'",
          watch: [{ regex: "(a+)+$" }],
        }),
      ).rejects.toThrow(/nested quantifier/);
      expect(rig.host.list()).toHaveLength(0);
    } finally {
      await rig.dispose();
    }
  });

  it("an accepted pattern that backtracks quadratically runs over at most the line limit, so it stays fast", () => {
    const watchers = new WatcherSet();
    watchers.add({ regex: "a*b" });
    const started = performance.now();
    expect(watchers.feed(`${"a".repeat(100_000)}\n`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
