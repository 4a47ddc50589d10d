#!/usr/bin/env node
/**
 * Store throughput for a process printing 100k lines per second (BENCH_LINES_PER_S, default
 * 100000, for BENCH_SECONDS, default 3), run through ProcessManager on an in-process TerminalHost:
 *   - SqliteRunStore (WAL, batched) with retention sized to keep everything, and with the default
 *     retention (10000 items / 1 MB per run: the DB stays bounded);
 *   - baseline: MemoryRunStore, same command, same run.
 * Figures: lines/s and items/s stored, agent CPU per 100k lines, bytes lost to the host's limit,
 * DB size. Then the store alone: appending one-line items (the worst case) as fast as it takes.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalHost } from "acp-terminal";
import { LocalTerminalProvider, MemoryRunStore, ProcessManager } from "acp-process";
import { SqliteRunStore } from "acp-process/sqlite";
import { fmt, header, Report } from "./support/report.mjs";

const RATE = Number(process.env.BENCH_LINES_PER_S ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const TOTAL = RATE * SECONDS;
const PER_TICK = RATE / 100;
const PRINTER = {
  command: process.execPath,
  args: [
    "-e",
    `let n=0;const line=i=>"line "+String(i).padStart(9,"0")+" the quick brown fox jumps\\n";` +
      `const t=setInterval(()=>{let s="";for(let k=0;k<${PER_TICK}&&n<${TOTAL};k++)s+=line(n++);process.stdout.write(s);if(n>=${TOTAL})clearInterval(t)},10)`,
  ],
};
const LINE_BYTES = 41;

const dir = mkdtempSync(join(tmpdir(), "acp-process-bench-"));
const dbSize = (path) =>
  ["", "-wal"].reduce(
    (n, suffix) => n + (statSync(path + suffix, { throwIfNoEntry: false })?.size ?? 0),
    0,
  );

async function endToEnd(store) {
  const stats = () => (store.stats ? store.stats() : undefined);
  const host = new TerminalHost({ defaultOutputByteLimit: 8 * 1024 * 1024 });
  const manager = new ProcessManager({
    provider: new LocalTerminalProvider(host),
    store,
    env: {},
    sweepIntervalMs: 0,
    maxOutputChars: 5_000_000,
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { run } = await manager.run({ sessionId: "bench", ...PRINTER, yieldMs: 120_000 });
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  store.flush();
  if (run.status !== "completed") throw new Error(`printer ended ${run.status}: ${run.error}`);
  if (run.outputBytes + run.lostBytes !== TOTAL * LINE_BYTES)
    throw new Error(
      `byte accounting: ${run.outputBytes} + ${run.lostBytes} != ${TOTAL * LINE_BYTES}`,
    );
  const sizes = stats();
  await manager.dispose();
  await host.dispose();
  return { run, elapsedMs, cpuMs: (used.user + used.system) / 1000, sizes };
}

function storeOnly(store, items) {
  store.putRun({
    id: "r",
    sessionId: "s",
    status: "running",
    nextSeq: items,
    createdAtMs: 0,
    endedAtMs: null,
  });
  const started = performance.now();
  for (let seq = 0; seq < items; seq++) {
    store.appendItems("r", [
      {
        seq,
        kind: "output",
        text: `line ${String(seq).padStart(9, "0")} the quick brown fox jumps\n`,
        atMs: seq,
        byteOffset: seq * LINE_BYTES,
      },
    ]);
  }
  store.flush();
  return performance.now() - started;
}

header(
  "acp-process store throughput",
  `a process printing ${RATE} lines/s for ${SECONDS} s (${TOTAL} lines of ${LINE_BYTES} bytes), local host`,
);
const report = new Report();
try {
  const memory = await endToEnd(
    new MemoryRunStore({ maxItemsPerRun: 1_000_000, maxCharsPerRun: 50_000_000 }),
  );
  const fullPath = join(dir, "full.db");
  const full = await endToEnd(
    new SqliteRunStore(fullPath, {
      retention: { maxItemsPerRun: 1_000_000, maxCharsPerRun: 50_000_000 },
    }),
  );
  const boundedPath = join(dir, "bounded.db");
  const bounded = await endToEnd(new SqliteRunStore(boundedPath));

  const perSecond = (count, ms) => `${Math.round(count / (ms / 1000)).toLocaleString("en")}/s`;
  for (const [name, result, path] of /** @type {const} */ ([
    ["SQLite, everything kept", full, fullPath],
    ["SQLite, default retention", bounded, boundedPath],
  ])) {
    const lines = result.run.lineCount;
    report.row({
      figure: `${name}: lines stored`,
      value: perSecond(lines, result.elapsedMs),
      baseline: `${perSecond(memory.run.lineCount, memory.elapsedMs)} memory`,
    });
    report.row({
      figure: `${name}: items stored`,
      value: `${perSecond(result.run.nextSeq, result.elapsedMs)} (${result.run.nextSeq} items)`,
      baseline: `${perSecond(memory.run.nextSeq, memory.elapsedMs)} memory`,
    });
    report.row({
      figure: `${name}: agent CPU per 100k lines`,
      value: fmt.ms((result.cpuMs / lines) * 100_000),
      baseline: `${fmt.ms((memory.cpuMs / memory.run.lineCount) * 100_000)} memory`,
      ratio: fmt.ratio(result.cpuMs / lines / (memory.cpuMs / memory.run.lineCount)),
    });
    report.row({
      figure: `${name}: bytes lost to the host limit`,
      value: String(result.run.lostBytes),
      baseline: `${memory.run.lostBytes} memory`,
    });
    report.row({
      figure: `${name}: DB size`,
      value: `${fmt.mb(dbSize(path))} on disk with WAL, ${fmt.mb(result.sizes.liveBytes)} live pages, for ${fmt.mb(TOTAL * LINE_BYTES)} of output`,
    });
  }

  const ITEMS = 300_000;
  const memoryMs = storeOnly(
    new MemoryRunStore({ maxItemsPerRun: 1_000_000, maxCharsPerRun: 50_000_000 }),
    ITEMS,
  );
  const sqlite = new SqliteRunStore(join(dir, "items.db"), {
    retention: { maxItemsPerRun: 1_000_000, maxCharsPerRun: 50_000_000 },
  });
  const sqliteMs = storeOnly(sqlite, ITEMS);
  sqlite.close();
  report.row({
    figure: "store alone: one-line items appended",
    value: `${Math.round(ITEMS / (sqliteMs / 1000)).toLocaleString("en")}/s SQLite`,
    baseline: `${Math.round(ITEMS / (memoryMs / 1000)).toLocaleString("en")}/s memory`,
    ratio: fmt.ratio(sqliteMs / memoryMs),
  });
  report.row({
    figure: "store alone: DB size",
    value: `${fmt.mb(dbSize(join(dir, "items.db")))} for ${ITEMS} items`,
  });
  report.note(
    "items are what the poller read at once (≤ 8192 chars each), so a chatty process makes few, large items",
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
report.print();
