#!/usr/bin/env node
/**
 * What containment costs through `acp-terminal run`, the CLI's defaults on (host pids, every
 * descendant tracked), beside `--no-contain` (process groups only) and `--pid-namespace` (a PID
 * namespace per terminal, the previous default), each figure beside a baseline measured in the
 * same run:
 *
 * - cycle: create (`true`) → wait_for_exit → release as the agent (support/cli-agent.mjs) sees
 *   it, beside the same cycle against a canned-answer client (the transport floor) and a bare
 *   `spawn('true')` → 'exit', all three timed by the same agent in alternating batches;
 * - exit seen: `bash -c 'echo $EPOCHREALTIME'`, create → wait_for_exit answered, beside a plain
 *   spawn of it → 'exit' in the agent; also from the command's own end to its exit being known;
 * - many: 200 and 1000 × `sleep 1` at once in one session, first create → last exit, beside as
 *   many plain spawns at once from this process (piped and read, each in its own group);
 * - flood: `head -c 200000000 /dev/zero` at outputByteLimit 1 MiB (text, and with the defaults
 *   also --json and --pty), the CLI's peak RSS sampled every 10 ms during the run minus its RSS
 *   just before the flood, beside the peak of a run whose one terminal is `true` (the same CLI,
 *   agent, flags and tool call);
 * - flood-read (issue 28's workload): the same flood three times, each create → wait_for_exit →
 *   terminal/output (the newest 1 MiB) → release; text with stdout to a file, and --json with
 *   stdout not read until the last flood has ended. The CLI's peak RSS (sampled every 10 ms
 *   during the run) minus its RSS at rest (just before the first flood), beside three runs of
 *   `true` the same way.
 *
 * BENCH_ITERATIONS (100) and BENCH_WARMUP (10) for the cycle and exit; BENCH_MODES
 * ("default,no-contain,pid-namespace") picks the CLI modes; BENCH_PARTS
 * ("cycle,exit,many,flood,flood-read"); BENCH_MANY_ROUNDS (3, for the defaults; 1 for the other modes);
 * BENCH_CLI another build of the CLI; BENCH_BEFORE another build run with the defaults as one more
 * mode, "before" (a change's before/after in one run: its rows follow the defaults' rows); the
 * cycle and exit runs of the two then alternate BENCH_BEFORE_ROUNDS (3) times, and each figure is
 * the median of its runs (one mode after the other, a load that comes and goes favours one side).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentStderrFlags } from "./support/cli-flags.mjs";
import { MB, MiB } from "./support/memory.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { median, now, summarize } from "./support/stats.mjs";

const CLI_CANDIDATES = [
  "../packages/acp-terminal-cli/dist/main.js",
  "../packages/acp-terminal/dist/cli/main.js",
].map((path) => fileURLToPath(new URL(path, import.meta.url)));
const CLI = process.env.BENCH_CLI ?? CLI_CANDIDATES.find(existsSync) ?? CLI_CANDIDATES[1];
const AGENT = fileURLToPath(new URL("./support/cli-agent.mjs", import.meta.url));
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const MANY_ROUNDS = Number(process.env.BENCH_MANY_ROUNDS ?? 3);
const PARTS = new Set((process.env.BENCH_PARTS ?? "cycle,exit,many,flood,flood-read").split(","));
const BEFORE = process.env.BENCH_BEFORE;
const BEFORE_ROUNDS = Number(process.env.BENCH_BEFORE_ROUNDS ?? 3);
const MODES = (process.env.BENCH_MODES ?? "default,no-contain,pid-namespace").split(",");
if (BEFORE) MODES.splice(MODES.indexOf("default") + 1, 0, "before");
const MODE_FLAGS = {
  default: [],
  before: [],
  "no-contain": ["--no-contain"],
  "pid-namespace": ["--pid-namespace"],
};
/** The CLI build a mode runs. */
const cliOf = (mode) => (mode === "before" && BEFORE ? BEFORE : CLI);
const FLOOD_BYTES = 200_000_000;
const SAMPLE_MS = 10;

function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined; // gone
  }
}

/**
 * Runs the CLI with `plan` as the agent's prompt; returns the agent's BENCH events, the CLI's
 * peak sampled RSS (whole run) and its RSS when the agent said flood-start.
 * @param {unknown} plan
 * @param {string[]} flags
 */
async function runCli(plan, flags, cli = CLI, stdout = "read") {
  const agent = [process.execPath, AGENT].map((word) => `'${word}'`).join(" ");
  const screen = join(tmpdir(), `cli-contain-${process.pid}.out`);
  const file = stdout === "file" ? openSync(screen, "w") : undefined;
  const child = spawn(
    process.execPath,
    [
      cli,
      "run",
      ...agentStderrFlags(cli),
      "--yes",
      "--max-terminals",
      "1000",
      ...flags,
      "--agent",
      agent,
      JSON.stringify(plan),
    ],
    { stdio: ["ignore", file ?? "pipe", "pipe"] },
  );
  if (file !== undefined) closeSync(file);
  /** @type {any[]} */
  const events = [];
  let stderr = "";
  let pending = "";
  let peak = 0;
  /** @type {number | undefined} */
  let beforeFlood;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(child.pid) ?? 0);
  }, SAMPLE_MS);
  // "stall": stdout is read only once the agent said the last flood ended.
  if (stdout === "read") child.stdout?.resume();
  child.stderr?.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("BENCH ")) continue;
      const event = JSON.parse(line.slice(6));
      if (event.event === "flood-start") beforeFlood = rssOf(child.pid);
      if (event.event === "flood-end" && stdout === "stall") child.stdout?.resume();
      events.push(event);
    }
  });
  const [code] = await once(child, "close");
  clearInterval(sampler);
  if (file !== undefined) rmSync(screen, { force: true });
  if (code !== 0)
    throw new Error(`acp-terminal exited with ${code}; stderr:\n${stderr.slice(-2000)}`);
  return { events, peak, beforeFlood };
}

const eventOf = (run, name) => {
  const event = run.events.find((e) => e.event === name);
  if (event === undefined) throw new Error(`the agent reported no ${name}`);
  return event;
};

/** `count` × `sleep 1` spawned at once here, piped and read, each in its own group: ms to the last close. */
async function plainSpawns(count) {
  const started = now();
  await Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn("sleep", ["1"], { stdio: ["ignore", "pipe", "pipe"], detached: true });
      child.stdout.resume();
      child.stderr.resume();
      const [code] = await once(child, "close");
      if (code !== 0) throw new Error(`sleep 1 exited with ${code}`);
    }),
  );
  return now() - started;
}

/**
 * The agent's `name` event of a run of `plan` per mode: one run each, but with BENCH_BEFORE the
 * defaults and "before" alternate BEFORE_ROUNDS times first.
 * @param {unknown} plan
 * @param {string} name
 * @returns {Promise<Map<string, any[]>>}
 */
async function eventsByMode(plan, name) {
  /** @type {string[]} */
  const order = [];
  for (let round = 0; round < (BEFORE ? BEFORE_ROUNDS : 0); round++) {
    order.push(...(round % 2 === 0 ? ["default", "before"] : ["before", "default"]));
  }
  order.push(...MODES.filter((mode) => !BEFORE || (mode !== "default" && mode !== "before")));
  /** @type {Map<string, any[]>} */
  const events = new Map(MODES.map((mode) => [mode, []]));
  for (const mode of order) {
    const run = await runCli(plan, MODE_FLAGS[mode], cliOf(mode));
    events.get(mode)?.push(eventOf(run, name));
  }
  return events;
}

/**
 * The median over runs of a figure of each run's samples.
 * @template T
 * @param {T[]} runs
 * @param {(run: T) => number} figure
 */
const acrossRuns = (runs, figure) => median(runs.map(figure));

async function cycleRows(report) {
  const events = await eventsByMode(
    { kind: "cycle", iterations: ITERATIONS, warmup: WARMUP },
    "cycle",
  );
  for (const mode of MODES) {
    const runs = (events.get(mode) ?? []).map((e) => ({
      cli: summarize(e.cli),
      floor: summarize(e.floor),
      bare: summarize(e.spawn),
    }));
    const pick = (side, p) => acrossRuns(runs, (run) => run[side][p]);
    const [c, f, s] = ["cli", "floor", "bare"].map((side) => ({
      p50: pick(side, "p50"),
      p95: pick(side, "p95"),
    }));
    report.row({
      figure: `cycle create→wait→release p50, ${mode}`,
      value: fmt.ms(c.p50),
      baseline: `${fmt.ms(f.p50)} floor + ${fmt.ms(s.p50)} bare spawn`,
      ratio: `${c.p50 - f.p50 - s.p50 >= 0 ? "+" : ""}${fmt.ms(c.p50 - f.p50 - s.p50)}`,
      goal: mode === "default" ? "<= floor + spawn + 1 ms" : "",
      ...(mode === "default" ? { met: c.p50 <= f.p50 + s.p50 + 1 } : {}),
    });
    report.row({
      figure: `  p95`,
      value: fmt.ms(c.p95),
      baseline: `${fmt.ms(f.p95)} floor + ${fmt.ms(s.p95)} bare spawn`,
    });
  }
}

async function exitRows(report) {
  const events = await eventsByMode(
    { kind: "exit", iterations: ITERATIONS, warmup: WARMUP },
    "exit",
  );
  for (const mode of MODES) {
    const runs = events.get(mode) ?? [];
    const figure = (samples, p) => acrossRuns(runs, (e) => summarize(e[samples])[p]);
    const [c, s, ce, se] = ["cli", "spawn", "cliAfterEnd", "spawnAfterEnd"].map((samples) => ({
      p50: figure(samples, "p50"),
      p95: figure(samples, "p95"),
    }));
    report.row({
      figure: `exit seen (create→wait_for_exit) p50, ${mode}`,
      value: fmt.ms(c.p50),
      baseline: `${fmt.ms(s.p50)} bare spawn→exit`,
      ratio: `+${fmt.ms(c.p50 - s.p50)}`,
      goal: mode === "default" ? "<= bare + 1 ms" : "",
      ...(mode === "default" ? { met: c.p50 <= s.p50 + 1 } : {}),
    });
    report.row({
      figure: `  from the command's end p50 / p95`,
      value: `${fmt.ms(ce.p50)} / ${fmt.ms(ce.p95)}`,
      baseline: `${fmt.ms(se.p50)} / ${fmt.ms(se.p95)} bare`,
    });
  }
}

async function manyRows(report) {
  for (const count of [200, 1000]) {
    for (const mode of MODES) {
      const rounds = [];
      for (
        let round = 0;
        round < (mode === "default" || mode === "before" ? MANY_ROUNDS : 1);
        round++
      ) {
        const cliRun = async () => {
          const run = await runCli(
            { kind: "many", count, command: "sleep", args: ["1"] },
            MODE_FLAGS[mode],
            cliOf(mode),
          );
          const many = eventOf(run, "many");
          if (many.count !== count) throw new Error(`many: ${JSON.stringify(many)}`);
          return many.ms;
        };
        // Alternate which side goes first.
        const [cli, plain] =
          round % 2 === 0
            ? [await cliRun(), await plainSpawns(count)]
            : (([p, c]) => [c, p])([await plainSpawns(count), await cliRun()]);
        rounds.push({ cli, plain });
      }
      // The ratio of the two printed medians, so the row reads true (a median of per-round
      // ratios over two rounds is their mean, and disagreed with the times beside it).
      const cli = median(rounds.map((r) => r.cli));
      const plain = median(rounds.map((r) => r.plain));
      const ratio = cli / plain;
      report.note(
        `${count} × sleep 1, ${mode}, each round (CLI / plain spawns): ${rounds
          .map((r) => `${fmt.s(r.cli)} / ${fmt.s(r.plain)}`)
          .join(", ")}`,
      );
      const isDefault = mode === "default";
      const goal = count === 200 ? "<= 1.2 s" : "<= 1.1x";
      report.row({
        figure: `${count} × sleep 1 in one session, ${mode}`,
        value: fmt.s(cli),
        baseline: `${fmt.s(plain)} plain spawns`,
        ratio: fmt.ratio(ratio),
        goal: isDefault ? goal : "",
        ...(isDefault ? { met: count === 200 ? cli <= 1200 : ratio <= 1.1 } : {}),
      });
    }
  }
}

/** Issue 28's workload: three floods, each read once with terminal/output after its exit. */
async function floodReadRows(report) {
  const plan = (command, args) => ({
    kind: "flood",
    command,
    args,
    outputByteLimit: MiB,
    times: 3,
    readOutput: true,
  });
  const modes = MODES.filter((mode) => mode === "default" || mode === "before");
  /** @type {Array<[string, string, string[], "file" | "stall"]>} */
  const cases = modes.flatMap((mode) => [
    [mode, "text, stdout to a file", [], "file"],
    [mode, "--json, stdout not read during the floods", ["--json"], "stall"],
  ]);
  for (const [mode, view, flags, stdout] of cases) {
    const flood = await runCli(
      plan("head", ["-c", String(FLOOD_BYTES), "/dev/zero"]),
      flags,
      cliOf(mode),
      stdout,
    );
    const idle = await runCli(plan("true", []), flags, cliOf(mode), stdout);
    if (flood.beforeFlood === undefined) throw new Error("the agent reported no flood-start");
    const raise = flood.peak - flood.beforeFlood;
    report.row({
      figure: `3 × ${FLOOD_BYTES / MB} MB flood at 1 MiB, each read with terminal/output, ${mode}, ${view}: CLI peak RSS − RSS at rest`,
      value: fmt.mb(raise),
      baseline: `at rest ${fmt.mb(flood.beforeFlood)}, peak ${fmt.mb(flood.peak)}; 3 × \`true\` the same way peaks at ${fmt.mb(idle.peak)}`,
      ratio: `${flood.peak >= idle.peak ? "+" : ""}${fmt.mb(flood.peak - idle.peak)} over it`,
      goal: mode === "default" ? "< 16 MB" : "",
      ...(mode === "default" ? { met: raise < 16 * MB } : {}),
    });
  }
}

async function floodRows(report) {
  const floodPlan = (command, args) => ({
    kind: "flood",
    command,
    args,
    outputByteLimit: MiB,
    times: 1,
  });
  const cases = [
    ...MODES.map((mode) => [mode, "text", MODE_FLAGS[mode]]),
    ...MODES.filter((mode) => mode === "default" || mode === "before").flatMap((mode) => [
      [mode, "--json", ["--json"]],
      [mode, "--pty", ["--pty"]],
    ]),
  ];
  for (const [mode, view, flags] of cases) {
    const flood = await runCli(
      floodPlan("head", ["-c", String(FLOOD_BYTES), "/dev/zero"]),
      flags,
      cliOf(mode),
    );
    const idle = await runCli(floodPlan("true", []), flags, cliOf(mode));
    if (flood.beforeFlood === undefined) throw new Error("the agent reported no flood-start");
    const raise = flood.peak - flood.beforeFlood;
    const isDefault = mode === "default";
    report.row({
      figure: `${FLOOD_BYTES / MB} MB flood at 1 MiB, ${mode}, ${view}: CLI peak RSS − RSS before`,
      value: fmt.mb(raise),
      baseline: `peak ${fmt.mb(flood.peak)}; a run of \`true\` peaks at ${fmt.mb(idle.peak)}`,
      ratio: `${flood.peak >= idle.peak ? "+" : ""}${fmt.mb(flood.peak - idle.peak)} over it`,
      goal: isDefault ? "< 16 MB" : "",
      ...(isDefault ? { met: raise < 16 * MB } : {}),
    });
  }
}

export async function main() {
  header(
    "cli-contain: what containment costs through acp-terminal run (defaults on), beside --no-contain and --pid-namespace",
    `modes ${MODES.join(", ")}; cycle and exit: ${ITERATIONS} iterations after ${WARMUP} warm-up, timed by the agent in alternating batches; many: ${MANY_ROUNDS} rounds; flood: ${FLOOD_BYTES / MB} MB`,
  );
  const report = new Report();
  if (PARTS.has("cycle")) await cycleRows(report);
  if (PARTS.has("exit")) await exitRows(report);
  if (PARTS.has("many")) await manyRows(report);
  if (PARTS.has("flood")) await floodRows(report);
  if (PARTS.has("flood-read")) await floodReadRows(report);
  report.note(
    "floor: the same cycle against a canned-answer client on the same SDK, timed by the same agent",
  );
  if (BEFORE) {
    report.note(
      `before: ${BEFORE}; cycle and exit: the defaults and before alternated ${BEFORE_ROUNDS} times, medians of the runs`,
    );
  }
  report.note("the CLI's RSS is read from /proc/<pid>/status every 10 ms for the whole run");
  report.print();
}

await main();
