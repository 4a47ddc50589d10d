#!/usr/bin/env node
/**
 * `acp-terminal run` as users run it: the real CLI binary (packages/acp-terminal-cli/dist/main.js)
 * hosting the terminals of an SDK agent (support/cli-agent.mjs) that floods them or starts many.
 * Every figure stands beside a baseline measured in the same run:
 *
 * - throughput: `head -c 200000000 /dev/zero` in a terminal with outputByteLimit 1 MiB, embedded
 *   in a tool call (text mode, stdout read), create → exit as the agent sees it, beside a plain
 *   Node read of the same command in a fresh process (support/plain-read.mjs);
 * - memory: the CLI's RSS growth (/proc/<pid>/status, sampled every 10 ms) over 3 × 200 MB, from
 *   just before the first flood to the peak;
 * - CPU per GiB: the CLI's utime + stime (/proc/<pid>/stat) over those floods, beside the plain
 *   read's own CPU time per GiB;
 * - stalled reader: --json (and text) with stdout unread for 10 s during a 1 GiB flood, then
 *   drained: RSS growth, and whether every final fact (tool call status, exit status, stop
 *   reason, result) arrived;
 * - many terminals: 1000 × `sleep 1` at once in one session (--max-terminals 1000; contained, the CLI's default, and --no-contain), first create →
 *   last exit as the agent sees it, beside 1000 plain spawns of `sleep 1` at once in this process
 *   (stdout and stderr piped and read, each in its own process group, as a host needs; and, for
 *   reference, with stdio ignored).
 *
 * BENCH_ROUNDS (default 3) rounds of throughput/memory/CPU, alternating which side goes first;
 * BENCH_MANY_ROUNDS (default 2) of the 1000 terminals. Figures are medians over rounds; ratios the
 * medians of per-round ratios. BENCH_PARTS (default "throughput,stall,many") picks parts;
 * BENCH_CLI runs another build of the CLI (an older one, for a before/after).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { agentStderrFlags } from "./support/cli-flags.mjs";
import { MB, MiB } from "./support/memory.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { median, now } from "./support/stats.mjs";

const CLI =
  process.env.BENCH_CLI ??
  fileURLToPath(new URL("../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const AGENT_STDERR = agentStderrFlags(CLI);
const PARTS = new Set((process.env.BENCH_PARTS ?? "throughput,stall,many").split(","));
const AGENT = fileURLToPath(new URL("./support/cli-agent.mjs", import.meta.url));
const PLAIN_READ = fileURLToPath(new URL("./support/plain-read.mjs", import.meta.url));
const GiB = 1024 * MiB;
const FLOOD_BYTES = 200_000_000;
const FLOODS = 3;
const STALL_BYTES = GiB;
const STALL_MS = Number(process.env.BENCH_STALL_MS ?? 10_000);
const MANY = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MANY_ROUNDS = Number(process.env.BENCH_MANY_ROUNDS ?? 2);
const TICK_MS = 1000 / 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux
const SAMPLE_MS = 10;

const headPlan = (bytes, times) => ({
  kind: "flood",
  command: "head",
  args: ["-c", String(bytes), "/dev/zero"],
  outputByteLimit: MiB,
  times,
});

/** The resident set and CPU time of a live process, from procfs; undefined once it is gone. */
function procOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at field 3; utime, stime are 14, 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      // @ts-expect-error a status without VmRSS (a zombie) throws here, and the catch answers undefined
      rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024,
      cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
    };
  } catch {
    return undefined;
  }
}

/**
 * Runs the CLI with `plan` as its prompt. Samples its RSS; notes RSS and CPU at the agent's
 * flood-start and CPU at flood-end; stdout is read at once, or only after `stallMs`.
 * @param {unknown} plan
 * @param {{ json?: boolean; stallMs?: number; extraArgs?: string[] }} [options]
 */
async function runCli(plan, { json = false, stallMs = 0, extraArgs = [] } = {}) {
  const agent = [process.execPath, AGENT].map((word) => `'${word}'`).join(" ");
  const args = [
    CLI,
    "run",
    ...AGENT_STDERR,
    "--yes",
    "--agent",
    agent,
    ...(json ? ["--json"] : []),
    ...extraArgs,
    JSON.stringify(plan),
  ];
  const started = now();
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  /** @type {any[]} */
  const events = [];
  let stdout = "";
  let stderr = "";
  /** @type {{ rss: number; cpuMs: number } | undefined} */
  let start;
  /** @type {{ rss: number; cpuMs: number } | undefined} */
  let end;
  let peak = 0;
  let stdoutReadAt;
  const sampler = setInterval(() => {
    const proc = procOf(child.pid);
    if (proc !== undefined && start !== undefined && end === undefined)
      peak = Math.max(peak, proc.rss);
  }, SAMPLE_MS);
  let pending = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("BENCH ")) continue;
      const event = JSON.parse(line.slice(6));
      events.push(event);
      if (event.event === "flood-start") start = procOf(child.pid);
      if (event.event === "flood-end") end = procOf(child.pid);
    }
  });
  let stdoutBytes = 0;
  let partial = "";
  const read = () => {
    if (stdoutReadAt !== undefined) return;
    stdoutReadAt = now() - started;
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdoutBytes += Buffer.byteLength(chunk);
      if (!json) return void (stdout += chunk);
      // --json: keep every line but the terminal output events, which may be gigabytes.
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines)
        if (!line.startsWith('{"type":"terminal","event":"output"')) stdout += `${line}\n`;
    });
  };
  const stall = stallMs > 0 ? setTimeout(read, stallMs) : (read(), undefined);
  // A run whose output fits in the pipe ends before the stall does: read what it left there.
  child.once("exit", read);
  const [code] = await once(child, "close");
  clearInterval(sampler);
  clearTimeout(stall);
  if (code !== 0)
    throw new Error(`acp-terminal exited with ${code}; stderr:\n${stderr.slice(-2000)}`);
  if (start !== undefined) peak = Math.max(peak, start.rss);
  return {
    events,
    stdout: stdout + partial,
    stdoutBytes,
    stderr,
    start,
    end,
    peak,
    stdoutReadAt,
    wallMs: now() - started,
  };
}

async function plainRead(command, args) {
  const child = spawn(process.execPath, [PLAIN_READ, command, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk));
  const [code] = await once(child, "close");
  if (code !== 0) throw new Error(`plain read exited with ${code}`);
  return JSON.parse(out);
}

/**
 * `count` × `sleep 1` spawned at once in this process; ms from the first spawn to the last exit.
 * `piped`: stdout and stderr are pipes that are read (what a host that shows output needs), and
 * each child leads its own process group, as a terminal's does; else stdio is ignored.
 */
async function plainSpawns(count, piped) {
  const started = now();
  await Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn(
        "sleep",
        ["1"],
        piped ? { stdio: ["ignore", "pipe", "pipe"], detached: true } : { stdio: "ignore" },
      );
      child.stdout?.resume();
      child.stderr?.resume();
      const [code] = await once(child, piped ? "close" : "exit");
      if (code !== 0) throw new Error(`sleep 1 exited with ${code}`);
    }),
  );
  return now() - started;
}

const mbps = (bytes, ms) => bytes / MB / (ms / 1000);

async function throughputRound(round) {
  const plain = async () => {
    const reads = [];
    for (let i = 0; i < FLOODS; i++)
      reads.push(await plainRead("head", ["-c", String(FLOOD_BYTES), "/dev/zero"]));
    return reads;
  };
  const cli = () => runCli(headPlan(FLOOD_BYTES, FLOODS));
  let reads;
  let run;
  if (round % 2 === 0) {
    reads = await plain();
    run = await cli();
  } else {
    run = await cli();
    reads = await plain();
  }
  const floods = run.events.filter((e) => e.event === "flood");
  if (floods.length !== FLOODS || floods.some((f) => f.exitCode !== 0))
    throw new Error(`floods: ${JSON.stringify(floods)}`);
  const plainMbps = median(reads.map((r) => mbps(r.bytes, r.ms)));
  const cliMbps = median(floods.map((f) => mbps(FLOOD_BYTES, f.ms)));
  const plainCpuPerGiB = median(reads.map((r) => (r.cpuMs * GiB) / r.bytes));
  if (run.start === undefined || run.end === undefined)
    throw new Error("the agent reported no flood-start or flood-end");
  const cliCpuPerGiB = ((run.end.cpuMs - run.start.cpuMs) * GiB) / (FLOOD_BYTES * FLOODS);
  return { plainMbps, cliMbps, plainCpuPerGiB, cliCpuPerGiB, growth: run.peak - run.start.rss };
}

/** The final facts a stalled run must still deliver, checked on what came out once drained. */
function finalFactsMissing(run, json) {
  const missing = [];
  const flood = run.events.find((e) => e.event === "flood");
  if (flood?.exitCode !== 0) missing.push("the flood's exit (agent side)");
  if (!/end_turn/.test(json ? run.stdout.trimEnd().split("\n").at(-1) : run.stderr))
    missing.push("stop reason");
  if (json) {
    const lines = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    if (!lines.some((l) => l.event === "exit" && l.exitStatus?.exitCode === 0))
      missing.push("exit status");
    if (
      !lines.some(
        (l) => l.update?.sessionUpdate === "tool_call_update" && l.update.status === "completed",
      )
    )
      missing.push("tool call status");
    if (lines.at(-1)?.type !== "result") missing.push("result");
  } else {
    if (!run.stdout.includes("✓ head")) missing.push("tool call status");
    if (!run.stdout.includes("└ exit 0")) missing.push("exit status");
    if (!/── end_turn · 1 terminal: 1 exit 0/.test(run.stderr)) missing.push("summary");
  }
  return missing;
}

async function stalled(json) {
  const run = await runCli(headPlan(STALL_BYTES, 1), { json, stallMs: STALL_MS });
  const flood = run.events.find((e) => e.event === "flood");
  if (run.start === undefined) throw new Error("the agent reported no flood-start");
  return {
    growth: run.peak - run.start.rss,
    missing: finalFactsMissing(run, json),
    floodMs: flood?.ms,
    readAt: run.stdoutReadAt,
    stdoutBytes: run.stdoutBytes,
  };
}

async function manyRound(round) {
  // The CLI contains each terminal in a PID namespace by default (where the system allows it);
  // --no-contain is the process-group mode, measured beside it.
  const cli = async (contain = true) => {
    const extraArgs = ["--max-terminals", String(MANY), ...(contain ? [] : ["--no-contain"])];
    const run = await runCli(
      { kind: "many", count: MANY, command: "sleep", args: ["1"] },
      { extraArgs },
    );
    const many = run.events.find((e) => e.event === "many");
    if (many?.count !== MANY) throw new Error(`many: ${JSON.stringify(many)}`);
    return many.ms;
  };
  if (round % 2 === 0) {
    const plain = await plainSpawns(MANY, true);
    const ignored = await plainSpawns(MANY, false);
    return { plain, ignored, cli: await cli(), uncontained: await cli(false) };
  }
  const cliMs = await cli();
  const uncontained = await cli(false);
  return {
    cli: cliMs,
    uncontained,
    ignored: await plainSpawns(MANY, false),
    plain: await plainSpawns(MANY, true),
  };
}

export async function main() {
  header(
    "cli-run: the acp-terminal CLI binary hosting an SDK agent's terminals",
    `${ROUNDS} rounds of ${FLOODS} × ${FLOOD_BYTES / MB} MB (head -c … /dev/zero, outputByteLimit 1 MiB, text mode) beside a plain Node read; stalled stdout ${STALL_MS / 1000} s during ${STALL_BYTES / GiB} GiB; ${MANY} × sleep 1 (${MANY_ROUNDS} rounds) beside plain spawns`,
  );
  const rounds = [];
  if (PARTS.has("throughput"))
    for (let round = 0; round < ROUNDS; round++) rounds.push(await throughputRound(round));
  const stalls = PARTS.has("stall")
    ? { json: await stalled(true), text: await stalled(false) }
    : {};
  const manys = [];
  if (PARTS.has("many"))
    for (let round = 0; round < MANY_ROUNDS; round++) manys.push(await manyRound(round));

  const report = new Report();
  if (rounds.length > 0) throughputRows(report, rounds);
  for (const [mode, stall] of Object.entries(stalls)) stallRows(report, mode, stall);
  if (manys.length > 0) manyRows(report, manys);
  report.note(
    "throughput and CPU are per round medians of the agent's create → exit; growth is the peak RSS minus the RSS just before the first flood",
  );
  report.note(
    "a spawn costs more the larger the spawning process (fork copies its page tables): the CLI's RSS, not the host's work, sets most of the 1000-terminal figure",
  );
  report.print();
}

function throughputRows(report, rounds) {
  const throughputRatio = median(rounds.map((r) => r.cliMbps / r.plainMbps));
  report.row({
    figure: `throughput, ${FLOOD_BYTES / MB} MB at outputByteLimit 1 MiB`,
    value: fmt.mbps(median(rounds.map((r) => r.cliMbps))),
    baseline: `${fmt.mbps(median(rounds.map((r) => r.plainMbps)))} plain read`,
    ratio: fmt.ratio(throughputRatio),
    goal: ">= 1.0x",
    met: throughputRatio >= 1.0,
  });
  const growth = median(rounds.map((r) => r.growth));
  report.row({
    figure: `CLI RSS growth over ${FLOODS} × ${FLOOD_BYTES / MB} MB`,
    value: fmt.mb(growth),
    baseline: "",
    goal: "< 16 MB",
    met: growth < 16 * MiB,
  });
  const cpuRatio = median(rounds.map((r) => r.cliCpuPerGiB / r.plainCpuPerGiB));
  report.row({
    figure: "CLI CPU per GiB",
    value: fmt.ms(median(rounds.map((r) => r.cliCpuPerGiB))),
    baseline: `${fmt.ms(median(rounds.map((r) => r.plainCpuPerGiB)))} plain read`,
    ratio: fmt.ratio(cpuRatio),
    goal: "<= 1.0x",
    met: cpuRatio <= 1.0,
  });
}

function stallRows(report, mode, stall) {
  report.row({
    figure: `stalled stdout (${mode}), RSS growth`,
    value: fmt.mb(stall.growth),
    baseline: `flood ${fmt.s(stall.floodMs)}, read at ${fmt.s(stall.readAt)}`,
    goal: "< 32 MB",
    met: stall.growth < 32 * MiB,
  });
  report.row({
    figure: `stalled stdout (${mode}), final facts missing`,
    value: stall.missing.length === 0 ? "none" : stall.missing.join(", "),
    baseline: `${fmt.mb(stall.stdoutBytes)} on stdout`,
    goal: "none",
    met: stall.missing.length === 0,
  });
}

function manyRows(report, manys) {
  const manyRatio = median(manys.map((m) => m.cli / m.plain));
  report.row({
    figure: `${MANY} × sleep 1 in one session`,
    value: fmt.s(median(manys.map((m) => m.cli))),
    baseline: `${fmt.s(median(manys.map((m) => m.plain)))} plain spawns, piped`,
    ratio: fmt.ratio(manyRatio),
    goal: "<= 1.1x",
    met: manyRatio <= 1.1,
  });
  const uncontainedRatio = median(manys.map((m) => m.uncontained / m.plain));
  report.row({
    figure: `  the same with --no-contain (process groups)`,
    value: fmt.s(median(manys.map((m) => m.uncontained))),
    baseline: `${fmt.s(median(manys.map((m) => m.plain)))} plain spawns, piped`,
    ratio: fmt.ratio(uncontainedRatio),
    goal: "<= 1.1x",
    met: uncontainedRatio <= 1.1,
  });
  const ignoredRatio = median(manys.map((m) => m.cli / m.ignored));
  report.row({
    figure: `  the same beside spawns with stdio ignored`,
    value: fmt.s(median(manys.map((m) => m.cli))),
    baseline: `${fmt.s(median(manys.map((m) => m.ignored)))} plain spawns, no pipes`,
    ratio: fmt.ratio(ignoredRatio),
  });
}

await main();
