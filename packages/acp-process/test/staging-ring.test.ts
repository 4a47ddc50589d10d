import { describe, expect, it } from "vitest";
import { StagingRing } from "../src/runs/spill/staging-ring.js";

const bytes = (length: number, fill: number) => new Uint8Array(length).fill(fill);

describe("the spill's staging ring", () => {
  it("copies: a copy keeps its bytes when the caller's buffer changes", () => {
    const ring = new StagingRing(64);
    const source = bytes(8, 1);
    const copy = ring.copy(source)!;
    source.fill(9);
    expect([...copy]).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(ring.holds(copy)).toBe(true);
  });

  it("refuses bytes larger than a quarter of it, and any when it is full", () => {
    const ring = new StagingRing(64);
    expect(ring.copy(bytes(17, 1))).toBeUndefined();
    const copies = [1, 2, 3, 4].map((fill) => ring.copy(bytes(16, fill)));
    expect(copies.every((copy) => copy !== undefined)).toBe(true);
    expect(ring.copy(bytes(1, 5))).toBeUndefined();
  });

  it("reuses a span only once it and every copy before it were released, whatever the order", () => {
    const ring = new StagingRing(64);
    const a = ring.copy(bytes(16, 1))!;
    const b = ring.copy(bytes(16, 2))!;
    const c = ring.copy(bytes(16, 3))!;
    // A later copy written first (a synchronous flush while `a` is still being written):
    ring.release(b);
    ring.release(c);
    const d = ring.copy(bytes(16, 4))!; // the last free span, at the end
    expect(ring.copy(bytes(16, 5))).toBeUndefined(); // b's and c's spans wait for a
    expect([...a]).toEqual(Array(16).fill(1));
    ring.release(a);
    const e = ring.copy(bytes(16, 5))!; // wraps to the start: a, b and c are free
    expect(e.byteOffset).toBe(a.byteOffset);
    expect([...d]).toEqual(Array(16).fill(4));
  });
});
