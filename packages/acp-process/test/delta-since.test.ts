import { describe, expect, it } from "vitest";
import { SnapshotDelta } from "../src/runs/output/delta.js";

describe("SnapshotDelta with exact increments (sinceByte / fromByte)", () => {
  it("asks from the last totalBytes and takes each answer as is", () => {
    const delta = new SnapshotDelta();
    expect(delta.sinceByte).toBe(0);
    expect(
      delta.next(
        { output: "abc", truncated: false, totalBytes: 3, droppedBytes: 0, fromByte: 0 },
        0,
      ),
    ).toEqual({
      text: "abc",
      lostBytes: 0,
      lostUnknown: false,
      exact: true,
    });
    expect(delta.sinceByte).toBe(3);
    expect(
      delta.next({ output: "", truncated: false, totalBytes: 3, droppedBytes: 0, fromByte: 3 }, 3)
        .text,
    ).toBe("");
    expect(
      delta.next({ output: "é€", truncated: false, totalBytes: 8, droppedBytes: 0, fromByte: 3 }, 3)
        .text,
    ).toBe("é€");
    expect(delta.sinceByte).toBe(8);
  });

  it("counts the bytes between sinceByte and fromByte as lost", () => {
    const delta = new SnapshotDelta();
    delta.next({ output: "abc", truncated: false, totalBytes: 3, droppedBytes: 0, fromByte: 0 }, 0);
    const next = delta.next(
      { output: "wxyz", truncated: true, totalBytes: 30, droppedBytes: 26, fromByte: 26 },
      3,
    );
    expect(next).toMatchObject({ text: "wxyz", lostBytes: 23, lostUnknown: false });
    expect(delta.sinceByte).toBe(30);
  });

  it("stops asking when the client ignores sinceByte, and reads its whole snapshot by cursors", () => {
    const delta = new SnapshotDelta();
    delta.next({ output: "abc", truncated: false, totalBytes: 3, droppedBytes: 0, fromByte: 0 }, 0);
    const whole = delta.next(
      { output: "abcdef", truncated: false, totalBytes: 6, droppedBytes: 0 },
      3,
    );
    expect(whole).toMatchObject({ text: "def", lostBytes: 0, exact: true });
    expect(delta.sinceByte).toBeUndefined();
  });

  it("takes nothing from an answer it cannot place, then continues from the whole snapshot", () => {
    const delta = new SnapshotDelta();
    delta.next({ output: "abc", truncated: false, totalBytes: 3, droppedBytes: 0, fromByte: 0 }, 0);
    // fromByte before what we asked for: the text would repeat bytes already read.
    expect(
      delta.next(
        { output: "bcd", truncated: false, totalBytes: 4, droppedBytes: 0, fromByte: 1 },
        3,
      ).text,
    ).toBe("");
    expect(delta.sinceByte).toBeUndefined();
    expect(
      delta.next({ output: "abcd", truncated: false, totalBytes: 4, droppedBytes: 0 }).text,
    ).toBe("d");
  });

  it("never offers sinceByte once an increment was derived by overlap (the offsets are gone)", () => {
    const delta = new SnapshotDelta();
    delta.next({ output: "one\n", truncated: false });
    expect(delta.sinceByte).toBeUndefined();
  });
});
