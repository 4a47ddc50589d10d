#!/usr/bin/env node
/**
 * Runs every benchmark in this folder, one after the other, each in its own Node process (so
 * memory figures start clean): `*.bench.mjs` and `process-*.mjs`, in name order. Prints a header
 * per benchmark. Figures and goals are information: the exit code is non-zero only when a
 * benchmark itself failed (threw, exited non-zero, or ran past BENCH_TIMEOUT_S, default 300).
 *
 *   node bench/run.mjs                 every benchmark
 *   node bench/run.mjs throughput wire only those whose file name contains a word given
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const BENCH_DIR = fileURLToPath(new URL(".", import.meta.url));
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 300) * 1000;
const filters = process.argv.slice(2);

const files = readdirSync(BENCH_DIR)
  .filter(
    (name) => name !== "run.mjs" && (name.endsWith(".bench.mjs") || /^process-.*\.mjs$/.test(name)),
  )
  .filter((name) => filters.length === 0 || filters.some((word) => name.includes(word)))
  .sort();

const rule = "=".repeat(100);
console.log(
  `benchmarks: ${files.length} (${files.join(", ")})\n` +
    `node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}\n` +
    "each figure stands beside a baseline measured in the same run; goals never fail the run",
);

const failures = [];
const started = performance.now();
for (const name of files) {
  console.log(`\n${rule}\n${name}\n${rule}`);
  const begin = performance.now();
  const child = spawn(process.execPath, [join(BENCH_DIR, name)], { stdio: "inherit" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, TIMEOUT_MS);
  const [code, signal] = await once(child, "exit");
  clearTimeout(timer);
  const seconds = ((performance.now() - begin) / 1000).toFixed(1);
  if (timedOut) failures.push(`${name}: killed after ${TIMEOUT_MS / 1000} s (BENCH_TIMEOUT_S)`);
  else if (code !== 0) failures.push(`${name}: exited with ${signal ?? code}`);
  console.log(
    `(${name}: ${seconds} s${code === 0 ? "" : `, FAILED: ${timedOut ? "timed out" : (signal ?? code)}`})`,
  );
}

console.log(`\n${rule}\nall benchmarks: ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (failures.length > 0) {
  console.log(`benchmarks that failed to run:\n  ${failures.join("\n  ")}`);
  process.exitCode = 1;
}
