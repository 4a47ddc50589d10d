#!/usr/bin/env node
/**
 * `acp-terminal run --protocol v2` against an SDK v2 agent (test/fixtures/v2-agent.mjs) that
 * floods its own terminals: what the CLI costs when the bytes come over the wire as
 * `terminal_output_chunk`s and go through the terminal emulator. Each figure beside a baseline
 * measured in the same run:
 *
 * - flood: 100 MiB of chunks (64 KiB each, base64 in JSON-RPC) to one terminal, text mode piped:
 *   wall time, the time until the terminal's exit line is shown (before the teardown), and the
 *   CLI's max RSS (`/usr/bin/time -f %M`), beside the same 100 MiB under v1
 *   (`head -c` in a terminal the CLI hosts itself: test/fixtures/cli-agent.mjs flood); the same
 *   bytes as v1 `_meta` terminal_output_delta text chunks (cli-agent.mjs meta-flood, codex-acp's
 *   dialect), beside the same baseline; and the max RSS of 500 MiB beside that of 100 MiB
 *   (bounded: the peak does not follow the volume). Both agents write their chunks as ready-made
 *   lines, so the figure is the CLI's;
 * - many terminals: 10,000 terminals reported, each with a 1 KiB snapshot and an exit, of which
 *   the CLI follows 1024 (the --max-total-terminals default; the others are ignored with one
 *   notice), beside a v2 run with none: the figure says so;
 * - render per chunk, in this process: one 64 KiB chunk of progress-bar redraws appended to an
 *   AgentTerminal and its screen read (`text()`, through @xterm/headless at 80x24), beside the v1
 *   text path's view of the same bytes (OutputLines, every chunk: strip-ansi and `\r`).
 *
 * BENCH_ROUNDS (default 2) rounds of the flood, alternating which side goes first; figures are
 * medians. BENCH_PARTS (default "flood,many,render") picks parts.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MiB } from "./support/memory.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { median, now } from "./support/stats.mjs";

const CLI =
  process.env.BENCH_CLI ??
  fileURLToPath(new URL("../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const V2_AGENT = fileURLToPath(new URL("../test/fixtures/v2-agent.mjs", import.meta.url));
const V1_AGENT = fileURLToPath(new URL("../test/fixtures/cli-agent.mjs", import.meta.url));
const TIME = "/usr/bin/time";
const PARTS = new Set((process.env.BENCH_PARTS ?? "flood,many,render").split(","));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const FLOOD_MIB = 100;
const MANY = 10_000;

const quote = (words) => words.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(" ");

/**
 * Runs the CLI under /usr/bin/time; wall ms, the ms until its stdout showed a terminal's exit line
 * (`└ exit`: the flood read and shown, before the teardown), max RSS bytes, and stderr's summary.
 */
async function runCli(args) {
  const started = now();
  const child = spawn(TIME, ["-f", "maxrss_kb=%M", process.execPath, CLI, "run", ...args, "go"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let exitShownMs;
  let tail = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    tail = (tail + chunk).slice(-4096);
    if (exitShownMs === undefined && tail.includes("└ exit")) exitShownMs = now() - started;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const [code] = await once(child, "close");
  const wallMs = now() - started;
  const kb = Number(/maxrss_kb=(\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  const summary =
    stderr
      .split("\n")
      .filter((line) => line.startsWith("──"))
      .at(-1) ?? "";
  if (code !== 0) throw new Error(`acp-terminal ${args.join(" ")} exited ${code}:\n${stderr}`);
  return { wallMs, exitShownMs, rss: kb * 1024, summary };
}

const v2Flood = (mib = FLOOD_MIB) =>
  runCli([
    "--protocol",
    "v2",
    "--agent",
    quote([process.execPath, V2_AGENT, "flood", String(mib), "0"]),
  ]);
const metaFlood = () =>
  runCli(["--agent", quote([process.execPath, V1_AGENT, "meta-flood", String(FLOOD_MIB * MiB)])]);
const v1Flood = () =>
  runCli([
    "--yes",
    "--agent",
    quote([process.execPath, V1_AGENT, "flood", String(FLOOD_MIB * MiB)]),
  ]);

header(
  "acp-terminal run --protocol v2: agent-owned terminals over the wire, through the emulator",
  `${FLOOD_MIB} MiB of terminal_output_chunks vs the same bytes hosted under v1; ${MANY} terminals; render per chunk`,
);
const report = new Report();

if (PARTS.has("flood") && existsSync(TIME)) {
  const v2 = [];
  const v1 = [];
  const meta = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Each side goes first as often: a loaded machine favours neither.
    const order = [
      () => v2Flood().then((r) => v2.push(r)),
      () => v1Flood().then((r) => v1.push(r)),
      () => metaFlood().then((r) => meta.push(r)),
    ];
    for (let i = 0; i < order.length; i++) {
      await order[(i + round) % order.length]();
    }
  }
  const wall2 = median(v2.map((r) => r.wallMs));
  const wall1 = median(v1.map((r) => r.wallMs));
  const shown2 = median(v2.map((r) => r.exitShownMs));
  const shown1 = median(v1.map((r) => r.exitShownMs));
  const shownMeta = median(meta.map((r) => r.exitShownMs));
  const rss2 = median(v2.map((r) => r.rss));
  const rss1 = median(v1.map((r) => r.rss));
  report.row({
    figure: `${FLOOD_MIB} MiB flood: CLI wall time (v2 chunks)`,
    value: fmt.s(wall2),
    baseline: `${fmt.s(wall1)} (v1, hosted)`,
    ratio: fmt.ratio(wall2 / wall1),
    goal: "<= 1.1x",
    met: wall2 <= wall1 * 1.1,
  });
  report.row({
    figure: `${FLOOD_MIB} MiB flood: start → exit line shown (v2 chunks)`,
    value: fmt.s(shown2),
    baseline: `${fmt.s(shown1)} (v1, hosted)`,
    ratio: fmt.ratio(shown2 / shown1),
  });
  report.row({
    figure: `${FLOOD_MIB} MiB flood: CLI max RSS (v2 chunks)`,
    value: fmt.mb(rss2),
    baseline: `${fmt.mb(rss1)} (v1, hosted)`,
    ratio: fmt.ratio(rss2 / rss1),
    goal: "<= v1 + 16 MB",
    met: rss2 <= rss1 + 16 * 1e6,
  });
  const wallMeta = median(meta.map((r) => r.wallMs));
  const rssMeta = median(meta.map((r) => r.rss));
  report.row({
    figure: `${FLOOD_MIB} MiB flood: CLI wall time (v1 _meta deltas)`,
    value: fmt.s(wallMeta),
    baseline: `${fmt.s(wall1)} (v1, hosted)`,
    ratio: fmt.ratio(wallMeta / wall1),
    goal: "<= 1.1x",
    met: wallMeta <= wall1 * 1.1,
  });
  report.row({
    figure: `${FLOOD_MIB} MiB flood: start → exit line shown (v1 _meta deltas)`,
    value: fmt.s(shownMeta),
    baseline: `${fmt.s(shown1)} (v1, hosted)`,
    ratio: fmt.ratio(shownMeta / shown1),
  });
  report.row({
    figure: `${FLOOD_MIB} MiB flood: CLI max RSS (v1 _meta deltas)`,
    value: fmt.mb(rssMeta),
    baseline: `${fmt.mb(rss1)} (v1, hosted)`,
    ratio: fmt.ratio(rssMeta / rss1),
    goal: "<= v1 + 16 MB",
    met: rssMeta <= rss1 + 16 * 1e6,
  });
  // Bounded means the peak does not follow the volume: 5 times the bytes, about the same peak.
  const big = await v2Flood(FLOOD_MIB * 5);
  report.row({
    figure: `${FLOOD_MIB * 5} MiB flood: CLI max RSS (v2 chunks)`,
    value: fmt.mb(big.rss),
    baseline: `${fmt.mb(rss2)} (${FLOOD_MIB} MiB)`,
    ratio: fmt.ratio(big.rss / rss2),
    goal: "< 1.5x (bounded)",
    met: big.rss < rss2 * 1.5,
  });
  report.note(
    "wall time includes the teardown after the turn (the agent's process group SIGTERMed, then waited for); the exit line is shown before it",
  );
  report.note(`v2 summary: ${v2[0].summary}`);
  report.note(`v1 summary: ${v1[0].summary}`);
}

if (PARTS.has("many") && existsSync(TIME)) {
  const many = await runCli([
    "--protocol",
    "v2",
    "--agent",
    quote([process.execPath, V2_AGENT, "flood", "0", String(MANY)]),
  ]);
  const none = await runCli([
    "--protocol",
    "v2",
    "--agent",
    quote([process.execPath, V2_AGENT, "flood", "0", "0"]),
  ]);
  report.row({
    figure: `${MANY} terminals reported, 1024 followed: CLI wall time`,
    value: fmt.s(many.wallMs),
    baseline: `${fmt.s(none.wallMs)} (no terminals)`,
    ratio: fmt.ratio(many.wallMs / none.wallMs),
  });
  report.row({
    figure: `${MANY} terminals reported, 1024 followed: CLI max RSS`,
    value: fmt.mb(many.rss),
    baseline: `${fmt.mb(none.rss)} (no terminals)`,
    ratio: fmt.ratio(many.rss / none.rss),
  });
  report.note(`many: ${many.summary}`);
}

if (PARTS.has("render")) {
  const { AgentTerminal } =
    await import("../packages/acp-terminal-cli/dist/view/agent-terminal.js");
  const { OutputLines } = await import("../packages/acp-terminal-cli/dist/render/output-lines.js");
  let bar = "";
  for (let i = 0; bar.length < 64 * 1024 - 80; i++)
    bar += `\r\x1b[2K[${"#".repeat(i % 50).padEnd(50)}] ${i % 100}%`;
  const chunk = Buffer.from(bar);
  const CHUNKS = 200;
  const emulator = new AgentTerminal("bench");
  const lines = new OutputLines(200);
  // Warm both paths up before timing.
  for (let i = 0; i < 10; i++) {
    emulator.append(chunk);
    emulator.text();
    lines.append(chunk);
    lines.tail();
  }
  let started = now();
  for (let i = 0; i < CHUNKS; i++) {
    emulator.append(chunk);
    emulator.text();
  }
  const emulatorMs = (now() - started) / CHUNKS;
  started = now();
  for (let i = 0; i < CHUNKS; i++) {
    lines.append(chunk);
    lines.tail();
  }
  const plainMs = (now() - started) / CHUNKS;
  report.row({
    figure: "64 KiB progress-bar chunk: append + screen read (emulator)",
    value: fmt.ms(emulatorMs),
    baseline: `${fmt.ms(plainMs)} (v1 text path: OutputLines, strip-ansi + \\r)`,
    ratio: fmt.ratio(emulatorMs / plainMs),
  });
  report.note(
    `render: ${(((chunk.byteLength / emulatorMs) * 1000) / 1e6).toFixed(1)} MB/s through the emulator`,
  );
}

report.print();
