import { describe, expect, it } from "vitest";
import { WatcherSet, DEFAULT_WATCHER_LIMITS } from "../src/runs/watchers.js";

describe("WatcherSet", () => {
  it("matches a line split over several chunks once", () => {
    const watchers = new WatcherSet();
    watchers.add({ regex: "^Listening on (\\d+)$", event: "listening" });
    expect(watchers.feed("boot\nListen")).toEqual([]);
    expect(watchers.feed("ing on 80")).toEqual([]);
    expect(watchers.feed("80\nnext\n")).toEqual([{ watcherId: "w0", event: "listening", match: "Listening on 8080" }]);
  });

  it("matches across chunk boundaries in stream scope and reports each match once", () => {
    const watchers = new WatcherSet();
    watchers.add({ regex: "ERR\\d+", scope: "stream" });
    expect(watchers.feed("xxER")).toEqual([]);
    expect(watchers.feed("R42 yy").map((h) => h.match)).toEqual(["ERR42"]);
    expect(watchers.feed(" ERR7").map((h) => h.match)).toEqual(["ERR7"]);
    expect(watchers.feed(" done")).toEqual([]);
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
    const watchers = new WatcherSet({ ...DEFAULT_WATCHER_LIMITS, maxWatchers: 2, maxPatternLength: 4 });
    expect(() => watchers.add({ regex: "abcd" })).not.toThrow();
    expect(() => watchers.add({ regex: "abcde" })).toThrow(/Invalid watch.regex: expected a pattern of 1..4 characters/);
    expect(() => watchers.add({ regex: "abc" })).not.toThrow();
    expect(() => watchers.add({ regex: "ab" })).toThrow(/at most 2 watchers/);
  });

  it("rejects invalid patterns and flags with the option named", () => {
    const watchers = new WatcherSet();
    expect(() => watchers.add({ regex: "(" })).toThrow(/Invalid watch.regex: expected a valid JavaScript regular expression/);
    expect(() => watchers.add({ regex: "a", flags: "g" })).toThrow(/Invalid watch.flags/);
  });
});
