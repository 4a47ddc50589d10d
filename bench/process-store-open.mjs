#!/usr/bin/env node
/**
 * What opening a SqliteRunStore costs, by file size: the default open-time check (`schema`: the
 * tables' columns and keys) against `openCheck: "quick_check"` (PRAGMA quick_check, reads every
 * page), and what `recover()` costs when every run was left running (each lost run's retention
 * window is rebuilt from its rows before the notice is appended). Files are built through the
 * store's own API. Sizes (BENCH_STORE_SIZES, "runs x items x chars" separated by commas) default
 * to a small store, the default maxRuns (500) of moderately chatty runs, and 500 runs at the
 * default retention cap (1 MB of text each). Opens are timed warm (the file in the page cache),
 * median of BENCH_OPENS (default 5).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalHost } from "acp-terminal";
import { LocalTerminalProvider, ProcessManager } from "acp-process";
import { SqliteRunStore } from "acp-process/sqlite";
import { fmt, header, Report } from "./support/report.mjs";

const SIZES = (process.env.BENCH_STORE_SIZES ?? "50x100x1000,500x100x1000,500x250x4000")
  .split(",")
  .map((size) => size.split("x").map(Number));
const OPENS = Number(process.env.BENCH_OPENS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "acp-process-bench-open-"));
const fileSize = (path) =>
  ["", "-wal"].reduce(
    (n, suffix) => n + (statSync(path + suffix, { throwIfNoEntry: false })?.size ?? 0),
    0,
  );

/** @returns {import("acp-process").RunRecord} */
function record(id, items, chars) {
  return {
    id,
    sessionId: "bench",
    command: "bench",
    args: null,
    cwd: null,
    env: null,
    pty: false,
    stdin: false,
    status: "running",
    exitCode: null,
    signal: null,
    cause: null,
    error: null,
    createdAtMs: 1,
    startedAtMs: 1,
    endedAtMs: null,
    terminalId: "t",
    timeoutMs: 0,
    idleTimeoutMs: 0,
    nextSeq: items,
    outputBytes: items * chars,
    lostBytes: 0,
    lostUnknown: false,
    lineCount: 0,
    exitNotified: false,
    labels: {},
    attempts: 1,
  };
}

function build(path, runs, items, chars) {
  const store = new SqliteRunStore(path, { flushItems: 5000 });
  const text = `${"x".repeat(chars - 1)}\n`;
  for (let r = 0; r < runs; r++) {
    const id = `run_${String(r).padStart(5, "0")}`;
    store.putRun(record(id, items, chars));
    for (let seq = 0; seq < items; seq += 50) {
      store.appendItems(
        id,
        Array.from({ length: Math.min(50, items - seq) }, (_, k) => ({
          seq: seq + k,
          kind: "output",
          text,
          atMs: seq + k,
          byteOffset: (seq + k) * chars,
        })),
      );
    }
  }
  store.close();
}

function medianOpenMs(path, openCheck) {
  const times = [];
  for (let i = 0; i < OPENS; i++) {
    const started = performance.now();
    const store = new SqliteRunStore(path, { openCheck });
    times.push(performance.now() - started);
    store.close();
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

async function recoverMs(path) {
  const host = new TerminalHost();
  const store = new SqliteRunStore(path);
  const manager = new ProcessManager({
    provider: new LocalTerminalProvider(host),
    store,
    env: {},
    sweepIntervalMs: 0,
  });
  const started = performance.now();
  const report = await manager.recover();
  const elapsed = performance.now() - started;
  await manager.dispose();
  await host.dispose();
  store.close();
  return { elapsed, lost: report.lost.length };
}

header(
  "acp-process store open-time check",
  `warm opens, median of ${OPENS}; recover() with every run left running`,
);
const report = new Report();
try {
  for (const [runs, items, chars] of SIZES) {
    const path = join(dir, `store-${runs}-${items}-${chars}.db`);
    const buildStarted = performance.now();
    build(path, runs, items, chars);
    const label = `${runs} runs x ${items} items x ${chars} chars (${fmt.mb(fileSize(path))})`;
    const schema = medianOpenMs(path, "schema");
    const quick = medianOpenMs(path, "quick_check");
    report.row({
      figure: `${label}: open, schema check`,
      value: fmt.ms(schema),
      baseline: `built in ${fmt.s(performance.now() - buildStarted)}`,
    });
    report.row({
      figure: `${label}: open, quick_check`,
      value: fmt.ms(quick),
      ratio: fmt.ratio(quick / schema),
    });
    const recovered = await recoverMs(path);
    report.row({
      figure: `${label}: recover() of ${recovered.lost} running runs`,
      value: fmt.ms(recovered.elapsed),
      baseline: `${fmt.ms(recovered.elapsed / recovered.lost)} per run`,
    });
    rmSync(path, { force: true });
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
report.print();
