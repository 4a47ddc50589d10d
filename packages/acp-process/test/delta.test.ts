import { describe, expect, it } from "vitest";
import { SnapshotDelta } from "../src/runs/output/delta.js";
import { overlapLength } from "../src/runs/output/overlap.js";

describe("SnapshotDelta with cursors", () => {
  it("returns exactly the new bytes, and counts bytes dropped before they were read", () => {
    const delta = new SnapshotDelta();
    expect(
      delta.next({ output: "abc", truncated: false, totalBytes: 3, droppedBytes: 0 }),
    ).toMatchObject({ text: "abc", lostBytes: 0, exact: true });
    expect(
      delta.next({ output: "abcdef", truncated: false, totalBytes: 6, droppedBytes: 0 }),
    ).toMatchObject({ text: "def", lostBytes: 0 });
    // The client kept only the last 4 of 12 bytes: 6..7 were never seen.
    expect(
      delta.next({ output: "ijkl", truncated: true, totalBytes: 12, droppedBytes: 8 }),
    ).toMatchObject({ text: "ijkl", lostBytes: 2 });
    expect(
      delta.next({ output: "ijkl", truncated: true, totalBytes: 12, droppedBytes: 8 }),
    ).toMatchObject({ text: "", lostBytes: 0 });
  });

  it("slices on UTF-8 bytes, not UTF-16 units", () => {
    const delta = new SnapshotDelta();
    delta.next({ output: "é", truncated: false, totalBytes: 2, droppedBytes: 0 });
    expect(
      delta.next({ output: "é€x", truncated: false, totalBytes: 6, droppedBytes: 0 }).text,
    ).toBe("€x");
  });

  it("falls back to overlap when the text does not match the byte counts", () => {
    const delta = new SnapshotDelta();
    const first = delta.next({
      output: "ab\uFFFD",
      truncated: false,
      totalBytes: 3,
      droppedBytes: 0,
    });
    expect(first.exact).toBe(false);
    expect(first.text).toBe("ab\uFFFD");
  });
});

describe("SnapshotDelta without cursors", () => {
  it("appends what follows the previous snapshot", () => {
    const delta = new SnapshotDelta();
    expect(delta.next({ output: "one\n", truncated: false }).text).toBe("one\n");
    expect(delta.next({ output: "one\ntwo\n", truncated: false }).text).toBe("two\n");
    expect(delta.next({ output: "one\ntwo\n", truncated: false }).text).toBe("");
  });

  it("finds the overlap when the client dropped the beginning", () => {
    const delta = new SnapshotDelta();
    const long = "a fairly long third line of output\n";
    delta.next({ output: `line1\nline2\n${long}`, truncated: false });
    expect(delta.next({ output: `${long}line4\n`, truncated: true })).toMatchObject({
      text: "line4\n",
      lostUnknown: false,
    });
  });

  it("does not trust a short overlap with a truncated snapshot to rule out loss", () => {
    const delta = new SnapshotDelta();
    delta.next({ output: "00001500 x\n0000", truncated: false });
    expect(delta.next({ output: "00001721 x\n", truncated: true })).toMatchObject({
      text: "1721 x\n",
      lostUnknown: true,
    });
  });

  it("reports unknown loss when nothing overlaps, and returns only what it saw", () => {
    const delta = new SnapshotDelta();
    delta.next({ output: "aaaa\n", truncated: false });
    expect(delta.next({ output: "zzzz\n", truncated: true })).toMatchObject({
      text: "zzzz\n",
      lostUnknown: true,
    });
  });
});

describe("overlapLength", () => {
  it("handles short overlaps at the end of the previous text", () => {
    expect(overlapLength("abcdef", "efgh")).toBe(2);
    expect(overlapLength("abc", "xyz")).toBe(0);
    expect(overlapLength("", "abc")).toBe(0);
  });

  it("handles overlaps longer than the search head", () => {
    const previous = `${"p".repeat(50)}${"q".repeat(100)}`;
    const next = `${"q".repeat(100)}tail`;
    expect(overlapLength(previous, next)).toBe(100);
  });
});
