#!/usr/bin/env node
/**
 * Every byte recoverable, at what cost: a command printing BENCH_SPILL_MIB (default 1024) MiB of
 * log lines through ProcessManager on a local TerminalHost (its output streamed to the agent and
 * spilled to disk past the store's window), from start to settled, beside the same command's
 * stdout piped into a file by a plain Node process (the baseline). Each side in a fresh process,
 * the order alternating per round (BENCH_ROUNDS, default 3), medians; the ratio is the median of
 * the per-round ratios. Then 200 random 64 KiB range reads of the finished run through
 * `manager.bytes()`, beside a pread of 64 KiB from the baseline's file.
 * Goals: the run ≤ 1.1x the plain pipe; any 64 KiB range read ≤ 5 ms.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, header, Report } from "./support/report.mjs";
import { median, percentile, summarize } from "./support/stats.mjs";

const MIB = Number(process.env.BENCH_SPILL_MIB ?? 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BYTES = MIB * 1024 * 1024;
const SIDE = fileURLToPath(new URL("./support/spill-run.mjs", import.meta.url));

header(
  "process-spill",
  `${MIB} MiB of log lines: ProcessManager (streamed, spilled to disk) vs a plain pipe into a file; 64 KiB range reads`,
);

function side(mode, dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SIDE, mode, dir, String(BYTES)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.once("close", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${mode} side exited with ${code}`)),
    );
  });
}

const rounds = [];
for (let round = 0; round < ROUNDS; round++) {
  const dir = mkdtempSync(join(tmpdir(), "acp-process-bench-spill-"));
  try {
    const order = round % 2 === 0 ? ["plain", "manager"] : ["manager", "plain"];
    const result = {};
    for (const mode of order) {
      result[mode] = await side(mode, dir);
    }
    rounds.push(result);
    console.log(
      `round ${round + 1}: plain ${fmt.s(result.plain.ms)}, manager ${fmt.s(result.manager.ms)} (${order.join(" first, ")})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const manager = rounds.map((r) => r.manager);
const plain = rounds.map((r) => r.plain);
const ratio = median(rounds.map((r) => r.manager.ms / r.plain.ms));
const reads = summarize(manager.flatMap((m) => m.reads));
const preads = summarize(plain.flatMap((p) => p.reads));
const everyByte = manager.every(
  (m) =>
    m.bytes === BYTES && m.lostBytes === 0 && m.diskBytes === BYTES && m.status === "completed",
);
const report = new Report();
report.row({
  figure: `${MIB} MiB run, start to settled`,
  value: fmt.s(median(manager.map((m) => m.ms))),
  baseline: `${fmt.s(median(plain.map((p) => p.ms)))} plain pipe into a file`,
  ratio: fmt.ratio(ratio),
  goal: "≤ 1.1x",
  met: ratio <= 1.1,
});
report.row({
  figure: `agent CPU for the ${MIB} MiB (main thread + file writes)`,
  value: fmt.s(median(manager.map((m) => m.cpuMs))),
  baseline: `${fmt.s(median(plain.map((p) => p.cpuMs)))} plain pipe into a file`,
  ratio: fmt.ratio(median(rounds.map((r) => r.manager.cpuMs / r.plain.cpuMs))),
});
report.row({
  figure: "every byte kept (total, lost, on disk)",
  value: everyByte
    ? `${BYTES} of ${BYTES}, 0 lost`
    : JSON.stringify(manager.map(({ reads: _, ...m }) => m)),
  goal: "all",
  met: everyByte,
});
report.row({
  figure: "64 KiB range read p50",
  value: fmt.ms(reads.p50),
  baseline: `${fmt.ms(preads.p50)} pread`,
});
report.row({
  figure: "64 KiB range read p99",
  value: fmt.ms(
    percentile(
      manager.flatMap((m) => m.reads),
      99,
    ),
  ),
  baseline: `${fmt.ms(
    percentile(
      plain.flatMap((p) => p.reads),
      99,
    ),
  )} pread`,
});
report.row({
  figure: "64 KiB range read max",
  value: fmt.ms(reads.max),
  baseline: `${fmt.ms(preads.max)} pread`,
  goal: "≤ 5 ms",
  met: reads.max <= 5,
});
report.row({
  figure: "range reads correct",
  value: manager.every((m) => m.correct) ? `${reads.n} of ${reads.n}` : "NO",
  goal: "all",
  met: manager.every((m) => m.correct),
});
report.note(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} (2 cores shared)`,
);
report.note(
  "the generator is `yes LINE | head -c N` (63-byte lines); both sides write to the same temporary directory; the manager's spill quota is raised above the run's size",
);
report.print();
