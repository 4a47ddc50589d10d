#!/usr/bin/env node
/**
 * One side of the spill benchmark, in a fresh Node process; prints one JSON line.
 *   spill-run.mjs plain <dir> <bytes>    the baseline: the generator's stdout piped into a file
 *   spill-run.mjs manager <dir> <bytes>  the same generator run by a ProcessManager on a local
 *                                        TerminalHost, spilling to <dir>; then random 64 KiB reads
 */
import { spawn } from "node:child_process";
import { closeSync, createWriteStream, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { TerminalHost } from "acp-terminal";
import { LocalTerminalProvider, ProcessManager, totalOutputBytes } from "acp-process";

export const LINE = "line of build output 0123456789 abcdefghijklmnopqrstuvwxyz ok\n";
const [mode, dir, size] = process.argv.slice(2);
const bytes = Number(size);
const command = `yes '${LINE.trimEnd()}' | head -c ${bytes}`;
const RANGE = 64 * 1024;
const READS = 200;
const randomOffset = () => Math.floor(Math.random() * (bytes - RANGE));
/** CPU of this process (main thread and libuv's pool: the file writes) since `start`, in ms. */
const cpuSince = (start) => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};

if (mode === "plain") {
  const file = join(dir, "plain.out");
  const cpu = process.cpuUsage();
  const started = performance.now();
  const child = spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "inherit"] });
  const out = createWriteStream(file);
  child.stdout.pipe(out);
  await new Promise((resolve, reject) =>
    out.on("finish", () => resolve(undefined)).on("error", reject),
  );
  const ms = performance.now() - started;
  const cpuMs = cpuSince(cpu);
  // The baseline of a range read: pread of 64 KiB from that file.
  const fd = openSync(file, "r");
  const buffer = Buffer.alloc(RANGE);
  const reads = [];
  for (let i = 0; i < READS; i++) {
    const t = performance.now();
    readSync(fd, buffer, 0, RANGE, randomOffset());
    reads.push(performance.now() - t);
  }
  closeSync(fd);
  console.log(JSON.stringify({ ms, cpuMs, bytes: statSync(file).size, reads }));
} else {
  const host = new TerminalHost();
  const manager = new ProcessManager({
    provider: new LocalTerminalProvider(host),
    outputSpill: { directory: join(dir, "spill"), quotaBytes: 2 * bytes + 64 * 1024 * 1024 },
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const run = await manager.wait((await manager.start({ sessionId: "bench", command })).id);
  const ms = performance.now() - started;
  const cpuMs = cpuSince(cpu);
  const reads = [];
  let correct = true;
  let firstWrong;
  for (let i = 0; i < READS; i++) {
    const offset = randomOffset();
    const t = performance.now();
    const read = await manager.bytes(run.id, { offset, limit: RANGE });
    reads.push(performance.now() - t);
    const expected = Array.from({ length: 16 }, (_, k) => LINE[(offset + k) % LINE.length]).join(
      "",
    );
    const right = read.bytes.length === RANGE && read.bytes.subarray(0, 16).toString() === expected;
    if (!right && correct) {
      firstWrong = {
        offset,
        length: read.bytes.length,
        got: read.bytes.subarray(0, 16).toString(),
        expected,
      };
    }
    correct &&= right;
  }
  console.log(
    JSON.stringify({
      ms,
      cpuMs,
      bytes: totalOutputBytes(run),
      lostBytes: run.lostBytes,
      diskBytes: manager.archive?.diskBytes,
      status: run.status,
      reads,
      correct,
      ...(firstWrong ? { firstWrong } : {}),
    }),
  );
  await manager.dispose();
  await host.dispose();
}
