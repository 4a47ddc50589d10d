import { describe, expect, it } from "vitest";
import { WatcherSet, DEFAULT_WATCHER_LIMITS } from "../src/runs/output/watchers.js";

describe("WatcherSet", () => {
  it("matches a line split over several chunks once", () => {
    const watchers = new WatcherSet();
    watchers.add({ regex: "^Listening on (\\d+)$", event: "listening" });
    expect(watchers.feed("boot\nListen")).toEqual([]);
    expect(watchers.feed("ing on 80")).toEqual([]);
    expect(watchers.feed("80\nnext\n")).toEqual([
      { watcherId: "w0", event: "listening", match: "Listening on 8080" },
    ]);
  });

  it("matches across chunk boundaries in stream scope and reports each match once", () => {
    const watchers = new WatcherSet();
    watchers.add({ regex: "ERR\\d+", scope: "stream" });
    expect(watchers.feed("xxER")).toEqual([]);
    expect(watchers.feed("R42 yy").map((h) => h.match)).toEqual(["ERR42"]);
    expect(watchers.feed(" ERR7")).toEqual([]); // at the end of the output so far: it could grow
    expect(watchers.feed(" done").map((h) => h.match)).toEqual(["ERR7"]);
  });

  it("stream matches are the same however the output is split", () => {
    const whole = new WatcherSet();
    whole.add({ regex: "\\d+", scope: "stream" });
    whole.add({ regex: "error: .*", scope: "stream" });
    const text = "build 123 done\nerror: disk full\nexit 4";
    const expected = whole.feed(text, true).map((h) => h.match);
    expect(expected).toEqual(["123", "4", "error: disk full"]);
    for (let cut = 1; cut < text.length; cut++) {
      const split = new WatcherSet();
      split.add({ regex: "\\d+", scope: "stream" });
      split.add({ regex: "error: .*", scope: "stream" });
      const matches = [
        ...split.feed(text.slice(0, cut)),
        ...split.feed(text.slice(cut)),
        ...split.feed("", true),
      ].map((h) => h.match);
      expect(matches.sort(), `split at ${cut}`).toEqual([...expected].sort());
    }
  });

  it("a stream watcher added later does not report output from before it was added", () => {
    const watchers = new WatcherSet();
    watchers.add({ regex: "x", scope: "line" });
    watchers.feed("ERR1 ");
    watchers.add({ regex: "ERR\\d", scope: "stream" });
    expect(watchers.feed("ERR2 ").map((h) => h.match)).toEqual(["ERR2"]);
  });

  it("removes once-watchers after the first hit", () => {
    const watchers = new WatcherSet();
    watchers.add({ regex: "tick", once: true });
    expect(watchers.feed("tick\ntick\n")).toHaveLength(1);
    expect(watchers.size).toBe(0);
  });

  it("flushes an unterminated last line at the end", () => {
    const watchers = new WatcherSet();
    watchers.add({ regex: "^done$" });
    expect(watchers.feed("done")).toEqual([]);
    expect(watchers.feed("", true)).toHaveLength(1);
  });

  it("bounds the count and the pattern length, at N-1, N and N+1", () => {
    const watchers = new WatcherSet({
      ...DEFAULT_WATCHER_LIMITS,
      maxWatchers: 2,
      maxPatternLength: 4,
    });
    expect(() => watchers.add({ regex: "abcd" })).not.toThrow();
    expect(() => watchers.add({ regex: "abcde" })).toThrow(
      /Invalid watch.regex: expected a pattern of 1..4 characters/,
    );
    expect(() => watchers.add({ regex: "abc" })).not.toThrow();
    expect(() => watchers.add({ regex: "ab" })).toThrow(/at most 2 watchers/);
  });

  it("rejects invalid patterns and flags with the option named", () => {
    const watchers = new WatcherSet();
    expect(() => watchers.add({ regex: "(" })).toThrow(
      /Invalid watch.regex: expected a valid JavaScript regular expression/,
    );
    expect(() => watchers.add({ regex: "a", flags: "g" })).toThrow(/Invalid watch.flags/);
  });
});
