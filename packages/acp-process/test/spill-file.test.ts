// One run's spill: bytes at absolute offsets in 16 MiB segment files, readable while writes are
// still queued, across segment boundaries, after eviction (said, not zeros) and after close.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SEGMENT_BYTES, SpillFile } from "../src/runs/spill/spill-file.js";
import { until } from "./support.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function spill(): { file: SpillFile; grown: () => number } {
  const dir = mkdtempSync(join(tmpdir(), "spill-file-"));
  dirs.push(dir);
  let grown = 0;
  return { file: new SpillFile(dir, (bytes) => (grown += bytes)), grown: () => grown };
}

describe("SpillFile", () => {
  it("reads what was written at once (still queued), across a segment boundary, and counts what it adds on disk", async () => {
    const { file, grown } = spill();
    const a = Buffer.alloc(SEGMENT_BYTES - 3, "a");
    const b = Buffer.from("bbbbbb");
    file.write(0, a);
    file.write(a.length, b);
    const across = file.read(SEGMENT_BYTES - 5, 8);
    expect("bytes" in across && across.bytes.toString()).toBe("aabbbbbb");
    expect(grown()).toBe(SEGMENT_BYTES + 3);
    file.close();
    const after = file.read(SEGMENT_BYTES - 5, 100);
    expect("bytes" in after && after.bytes.toString()).toBe("aabbbbbb");
    expect([...file.segments]).toEqual([
      [0, SEGMENT_BYTES],
      [1, 3],
    ]);
  });

  it("evicts the oldest segment not being written, and a read there says evicted", () => {
    const { file } = spill();
    file.write(0, Buffer.alloc(SEGMENT_BYTES, "x"));
    file.write(SEGMENT_BYTES, Buffer.from("tail"));
    file.flush();
    expect(file.evictOldest()).toBe(SEGMENT_BYTES);
    expect(file.evictOldest()).toBe(0); // the one being written stays
    expect(file.read(10, 10)).toEqual({ evicted: true });
    expect(file.firstOffset).toBe(SEGMENT_BYTES);
    const kept = file.read(SEGMENT_BYTES, 10);
    expect("bytes" in kept && kept.bytes.toString()).toBe("tail");
    file.close();
  });

  it("returns only what a file cut short by something else still holds, never stale memory", async () => {
    const { file } = spill();
    file.write(0, Buffer.from("0123456789"));
    file.close();
    // The write in flight when close() returned lands (off the event loop).
    await until(() => !file.busy, "the write on disk");
    rmSync(join(file.dir, "000000.out"));
    const read = file.read(0, 10);
    expect("bytes" in read && read.bytes.length).toBe(0);
  });
});
