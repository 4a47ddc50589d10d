// Every byte recoverable: output past the store's window is spilled to disk and read back by
// absolute offset (after exit, after a restart on SQLite), under a disk quota; a range that
// cannot be read is an error saying why, never an empty answer.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ProcessError, totalOutputBytes, type ProcessManager } from "../src/index.js";
import { SqliteRunStore } from "../src/sqlite.js";
import { acpClient, type AcpClientRig } from "./acp-support.js";
import { useLocalRigs } from "./support.js";

const rig = useLocalRigs();
const SEQ = execFileSync("seq", ["1", "3000000"], { maxBuffer: 64 << 20 });
const MiB = 1024 * 1024;

async function rejection(promise: Promise<unknown>): Promise<ProcessError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProcessError) {
      return error;
    }
    throw error;
  }
  throw new Error("expected a ProcessError, the read succeeded");
}

async function readAll(manager: ProcessManager, runId: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let offset = 0; ;) {
    const read = await manager.bytes(runId, { offset, limit: 4 * MiB });
    if (read.bytes.length === 0) {
      return Buffer.concat(parts);
    }
    parts.push(read.bytes);
    offset += read.bytes.length;
  }
}

describe("spilled output, local provider", () => {
  it("keeps all 22888896 bytes of seq 1 3000000 (outputBytes is the total, nothing lost) and reads any range by absolute offset after the exit", async () => {
    const { manager } = rig();
    const { run } = await manager.run({
      sessionId: "s",
      command: "seq 1 3000000",
      yieldMs: 60_000,
    });
    expect(run).toMatchObject({ status: "completed", outputBytes: SEQ.length, lostBytes: 0 });
    expect(totalOutputBytes(run)).toBe(22_888_896);
    expect((await readAll(manager, run.id)).equals(SEQ)).toBe(true);
    for (const offset of [0, 3_997_696, 10_000_001, SEQ.length - 10]) {
      const read = await manager.bytes(run.id, { offset, limit: 65_536 });
      expect(read.offset).toBe(offset);
      expect(read.bytes.equals(SEQ.subarray(offset, offset + 65_536))).toBe(true);
    }
    expect(manager.archive?.diskBytes).toBe(SEQ.length);
  });

  it("removes its temporary spill directory on dispose, and one left by an agent that died", async () => {
    const stale = join(tmpdir(), "acp-process-output-999999999-test");
    mkdirSync(stale, { recursive: true });
    const local = rig();
    const { run } = await local.manager.run({
      sessionId: "s",
      command: "seq 1 300000",
      yieldMs: 60_000,
    });
    const dir = local.manager.archive!.directory!;
    expect(readdirSync(dir)).toEqual([run.id]);
    expect(existsSync(stale)).toBe(false);
    await local.dispose();
    expect(existsSync(dir)).toBe(false);
  });

  it("evicts the oldest finished run's spill first when the quota is exceeded; reading it says so and where reading can go on", async () => {
    const { manager } = rig({ outputSpill: { quotaBytes: 64 * MiB } });
    const produce = (n: number) => `head -c ${n * MiB} /dev/zero | tr '\\0' x`;
    const first = (await manager.run({ sessionId: "s", command: produce(40), yieldMs: 60_000 }))
      .run;
    const second = (await manager.run({ sessionId: "s", command: produce(40), yieldMs: 60_000 }))
      .run;
    expect(manager.archive!.diskBytes).toBeLessThanOrEqual(64 * MiB);
    const evicted = await rejection(manager.bytes(first.id, { offset: 0, limit: 100 }));
    expect(evicted.code).toBe("output_evicted");
    expect(evicted.message).toMatch(
      new RegExp(
        `Bytes 0\\.\\.\\d+ of run ${first.id} were evicted from the output spill by its disk quota \\(67108864 bytes.*readable from offset \\d+`,
      ),
    );
    // The end of the evicted run is still in the store's window, and the newer run is whole.
    const tail = await manager.bytes(first.id, { offset: 40 * MiB - 10, limit: 100 });
    expect(tail.text).toBe("x".repeat(10));
    expect((await manager.bytes(second.id, { offset: 0, limit: 10 })).text).toBe("x".repeat(10));
  });

  it("evicts the oldest part of a live run's own spill when it alone outgrows the quota", async () => {
    const { manager } = rig({ outputSpill: { quotaBytes: 64 * MiB } });
    const { run } = await manager.run({
      sessionId: "s",
      command: `head -c ${100 * MiB} /dev/zero | tr '\\0' y`,
      yieldMs: 60_000,
    });
    expect(run.outputBytes).toBe(100 * MiB);
    expect(manager.archive!.diskBytes).toBeLessThanOrEqual(64 * MiB);
    expect((await rejection(manager.bytes(run.id, { offset: 0, limit: 1 }))).code).toBe(
      "output_evicted",
    );
    expect((await manager.bytes(run.id, { offset: 90 * MiB, limit: 5 })).text).toBe("yyyyy");
  });

  it("refuses bytes past max_output_bytes as not kept, and bytes older than the window when spilling is off", async () => {
    const { manager } = rig();
    const capped = await manager.start({
      sessionId: "s",
      command: "seq 1 100000",
      maxOutputBytes: 1000,
    });
    const done = await manager.wait(capped.id);
    expect(totalOutputBytes(done)).toBe(588_895);
    expect(await rejection(manager.bytes(done.id, { offset: 1000, limit: 10 }))).toMatchObject({
      code: "output_not_kept",
      message: expect.stringMatching(/Bytes 1000\.\.588895 .* max_output_bytes \(1000\)/),
    });
    const off = rig({ outputSpill: false, maxOutputChars: 10_000 });
    const { run } = await off.manager.run({
      sessionId: "s",
      command: "seq 1 100000",
      yieldMs: 60_000,
    });
    expect(off.manager.archive).toBeUndefined();
    expect(await rejection(off.manager.bytes(run.id, { offset: 0, limit: 10 }))).toMatchObject({
      code: "output_evicted",
      message: expect.stringMatching(
        /no longer retained .* not spilled to disk\); the output is readable from offset \d+/,
      ),
    });
  });

  it("reads a spill whose files something else removed as evicted, never as zeros", async () => {
    const { manager } = rig();
    const { run } = await manager.run({ sessionId: "s", command: "seq 1 300000", yieldMs: 60_000 });
    rmSync(join(manager.archive!.directory!, run.id), { recursive: true, force: true });
    // A write still in flight when the run ended keeps the segment open until it lands, and a read
    // through that open file gets the real bytes; once closed, the removed files read as evicted.
    const read = await manager.bytes(run.id, { offset: 0, limit: 100 }).then(
      (answer) => answer,
      (error: unknown) => error,
    );
    if (read instanceof ProcessError) {
      expect(read.code).toBe("output_evicted");
    } else {
      const seq = Array.from({ length: 40 }, (_, i) => `${i + 1}\n`).join("");
      expect((read as { text: string }).text).toBe(seq.slice(0, 100));
    }
    // The store's window still has the end.
    const end = await manager.bytes(run.id, { offset: run.outputBytes - 7, limit: 7 });
    expect(end.text).toBe("300000\n");
  });

  it("refuses a quota under 64 MiB when the manager is made", () => {
    expect(() => rig({ outputSpill: { quotaBytes: 1000 } })).toThrow(
      /outputSpill.quotaBytes: expected a whole number of bytes, at least 67108864/,
    );
  });
});

describe("spilled output across a restart on SQLite", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it("reads every byte of a finished run by offset from a new store and manager on the same file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-process-spill-"));
    dirs.push(dir);
    const path = join(dir, "runs.db");
    const first = rig({ store: new SqliteRunStore(path) });
    const { run } = await first.manager.run({
      sessionId: "s",
      command: "seq 1 3000000",
      yieldMs: 60_000,
    });
    await first.dispose();
    first.manager.store.close();
    expect(readdirSync(`${path}.output`)).toEqual([run.id]);
    const store = new SqliteRunStore(path);
    const second = rig({ store });
    try {
      expect(totalOutputBytes(second.manager.get(run.id))).toBe(SEQ.length);
      expect((await readAll(second.manager, run.id)).equals(SEQ)).toBe(true);
      expect(second.manager.archive!.diskBytes).toBe(SEQ.length);
      second.manager.remove(run.id);
      expect(readdirSync(`${path}.output`)).toEqual([]);
    } finally {
      await second.dispose();
      store.close();
    }
  });
});

describe("spilled output over ACP (our host behind the SDK, over stdio)", () => {
  let client: AcpClientRig | undefined;
  afterEach(async () => {
    await client?.dispose();
    client = undefined;
  });

  it("counts output the client dropped in the total and refuses its range as lost, naming where reading goes on", async () => {
    client = await acpClient();
    // A 4 KiB client buffer read every 200 ms: most of seq's output is dropped before it is read.
    const { manager } = client.managerFor({
      tuning: { outputByteLimit: 4096, pollMinMs: 200, pollMaxMs: 200 },
    });
    const { run } = await manager.run({
      sessionId: "s1",
      command: "seq 1 3000000",
      yieldMs: 60_000,
    });
    expect(run.lostBytes).toBeGreaterThan(0);
    expect(totalOutputBytes(run)).toBe(SEQ.length);
    const [start, bytes] = run.lostRanges![0]!;
    const lost = await rejection(manager.bytes(run.id, { offset: start, limit: 10 }));
    expect(lost.code).toBe("output_lost");
    expect(lost.message).toContain(
      `Bytes ${start}..${start + bytes} of run ${run.id} were dropped by the client's output limit before acp-process could read them; the output is readable again from offset ${start + bytes}`,
    );
    // What was read is exactly the command's bytes at those offsets.
    const kept = await manager.bytes(run.id, { offset: start + bytes, limit: 100 });
    expect(kept.bytes.equals(SEQ.subarray(start + bytes, start + bytes + kept.bytes.length))).toBe(
      true,
    );
    // The tail, read last, is whole.
    const end = await manager.bytes(run.id, { offset: SEQ.length - 50, limit: 50 });
    expect(end.bytes.equals(SEQ.subarray(SEQ.length - 50))).toBe(true);
  });
});
