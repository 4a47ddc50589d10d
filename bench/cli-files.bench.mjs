#!/usr/bin/env node
/**
 * What the agent's file requests cost through `acp-terminal run --yes`: `fs/read_text_file` of a
 * small file three directories below the session's cwd, and `fs/write_text_file` beside it (a
 * temporary file renamed over it), as the agent (support/cli-agent.mjs) times them, beside the
 * same read and write-and-rename done in the agent itself (the floor a request adds its round
 * trip to), in alternating batches.
 *
 * BENCH_ITERATIONS (200) and BENCH_WARMUP (20); BENCH_CLI another build of the CLI; BENCH_BEFORE
 * another build run as one more mode, "before" (a change's before/after in one run): the two then
 * alternate BENCH_BEFORE_ROUNDS (3) times, and each figure is the median of its runs.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, header, Report } from "./support/report.mjs";
import { median, summarize } from "./support/stats.mjs";

const CLI =
  process.env.BENCH_CLI ??
  fileURLToPath(new URL("../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const AGENT = fileURLToPath(new URL("./support/cli-agent.mjs", import.meta.url));
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const BEFORE = process.env.BENCH_BEFORE;
const ROUNDS = BEFORE ? Number(process.env.BENCH_BEFORE_ROUNDS ?? 3) : 1;

/** The agent's `files` event of one run of the CLI at `cli` in `cwd`. */
async function runCli(cli, cwd, file) {
  const plan = { kind: "files", iterations: ITERATIONS, warmup: WARMUP, file };
  const agent = [process.execPath, AGENT].map((word) => `'${word}'`).join(" ");
  const child = spawn(
    process.execPath,
    [cli, "run", "--yes", "--cwd", cwd, "--agent", agent, JSON.stringify(plan)],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const [code] = await once(child, "close");
  if (code !== 0)
    throw new Error(`acp-terminal exited with ${code}; stderr:\n${stderr.slice(-2000)}`);
  const line = stderr.split("\n").find((l) => l.startsWith("BENCH ") && l.includes('"files"'));
  if (line === undefined) throw new Error(`the agent reported no files event:\n${stderr}`);
  return JSON.parse(line.slice(6));
}

export async function main() {
  header(
    "cli-files: the agent's file requests through acp-terminal run --yes",
    `${ITERATIONS} reads and writes after ${WARMUP} warm-up, timed by the agent in alternating batches beside the same read and write done in the agent${BEFORE ? `; ${ROUNDS} runs of this build and of ${BEFORE}, alternating` : ""}`,
  );
  if (!existsSync(CLI)) throw new Error(`no CLI at ${CLI}: build first (corepack pnpm build)`);
  const cwd = mkdtempSync(path.join(tmpdir(), "cli-files-bench-"));
  const file = path.join(cwd, "a", "b", "c", "notes.txt");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, "one line of notes\n".repeat(20));
  /** @type {Map<string, any[]>} */
  const runs = new Map();
  runs.set("this build", []);
  if (BEFORE) runs.set("before", []);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [...runs.keys()] : [...runs.keys()].reverse();
      for (const mode of order) {
        runs.get(mode)?.push(await runCli(mode === "before" ? BEFORE : CLI, cwd, file));
      }
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  const report = new Report();
  for (const [what, plain] of [
    ["read", "plainRead"],
    ["write", "plainWrite"],
  ]) {
    for (const [mode, events] of runs) {
      const pick = (side, p) => median(events.map((event) => summarize(event[side])[p]));
      for (const p of ["p50", "p95"]) {
        const cli = pick(what, p);
        const floor = pick(plain, p);
        report.row({
          figure: `fs/${what}_text_file ${p}, ${mode}`,
          value: fmt.ms(cli),
          baseline: `${fmt.ms(floor)} done in the agent`,
          ratio: `+${fmt.ms(cli - floor)}`,
        });
      }
    }
  }
  report.note("each figure: the median over runs of the run's percentile");
  report.print();
}

await main();
