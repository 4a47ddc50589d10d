#!/usr/bin/env node
/**
 * `acp-terminal mcp --yes` as an MCP client sees it (the MCP SDK client over stdio), each figure
 * beside a baseline measured in the same run:
 *
 * - exec: the `exec` tool running `true` to completion, p50 and p95, beside a bare
 *   `spawn('true')` → 'exit' from this process; servers with the login environment (the default)
 *   and with `--no-login-env`, alternating batches of 10 with the bare spawns;
 * - line: one 100 MB line (`head -c 100000000 /dev/zero | tr '\0' x`) through `exec`: the server's
 *   RSS (/proc/<pid>/status) sampled every 50 ms from the call to its answer, minus its RSS just
 *   before the call;
 * - rest: the server's RSS after `initialize` and 30 short commands (`true`) and a second of rest,
 *   beside a minimal server on the same SDK with one tool that runs nothing
 *   (support/minimal-mcp-server.mjs, the same calls): what the SDK and Node alone hold here.
 *
 * BENCH_ITERATIONS (100), BENCH_WARMUP (10), BENCH_PARTS ("exec,line,rest"), BENCH_CLI (another
 * build of the CLI), BENCH_BEFORE (another build, run as one more server, "before", in the same
 * batches: a change's before and after in one run), BENCH_JSON (a file to write the figures to,
 * for bench/check-budgets.mjs).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { MB } from "./support/memory.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { now, summarize } from "./support/stats.mjs";

const CLI =
  process.env.BENCH_CLI ??
  fileURLToPath(new URL("../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const BEFORE = process.env.BENCH_BEFORE;
const MINIMAL = fileURLToPath(new URL("./support/minimal-mcp-server.mjs", import.meta.url));
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const PARTS = new Set((process.env.BENCH_PARTS ?? "exec,line,rest").split(","));
const LINE_COMMAND = "head -c 100000000 /dev/zero | tr '\\0' x";
const SAMPLE_MS = 50;
const REST_COMMANDS = 30;
/** The issue's budgets (bench/check-budgets.mjs compares with them). */
export const BUDGETS = { execOverSpawnMs: 3, lineGrowthBytes: 16 * MB, restBytes: 64 * MB };

function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // gone
  }
}

/**
 * A server started over stdio: `acp-terminal mcp` of `cli`, or the minimal one.
 * @param {string} workspace
 * @param {{ cli?: string, flags?: string[], minimal?: boolean }} [options]
 */
async function startServer(workspace, { cli = CLI, flags = [], minimal = false } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: minimal ? [MINIMAL] : [cli, "mcp", "--workspace", workspace, "--yes", ...flags],
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error("the server has no pid");
  return {
    pid,
    exec: async (command) => {
      const result = await client.callTool(
        { name: "exec", arguments: { command, yieldMs: 120_000 } },
        { timeout: 300_000 },
      );
      const answer = /** @type {any} */ (result.structuredContent);
      if (result.isError || (!minimal && answer?.status !== "completed"))
        throw new Error(`exec ${command}: ${JSON.stringify(result).slice(0, 500)}`);
      return answer;
    },
    close: () => client.close(),
  };
}

async function bareSpawn() {
  const child = spawn("true", [], { stdio: "ignore" });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`true exited with ${code}`);
}

/** Every variant `WARMUP + ITERATIONS` times, in turns of 10: ms of each after the warm-up. */
async function alternate(variants) {
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let done = 0; done < WARMUP + ITERATIONS; done += 10) {
    for (const [name, run] of Object.entries(variants)) {
      for (let i = done; i < Math.min(WARMUP + ITERATIONS, done + 10); i++) {
        const started = now();
        await run();
        if (i >= WARMUP) samples[name].push(now() - started);
      }
    }
  }
  return samples;
}

/**
 * Which servers each part runs: the build measured, and BENCH_BEFORE's as "before".
 * @returns {[string, string][]}
 */
const builds = () => [
  ["after", CLI],
  ...(BEFORE ? [/** @type {[string, string]} */ (["before", BEFORE])] : []),
];

async function execRows(report, workspace, figures) {
  /** @type {Record<string, Awaited<ReturnType<typeof startServer>>>} */
  const servers = {};
  for (const [build, cli] of builds()) {
    servers[`${build}`] = await startServer(workspace, { cli });
    servers[`${build} --no-login-env`] = await startServer(workspace, {
      cli,
      flags: ["--no-login-env"],
    });
  }
  try {
    const samples = await alternate({
      bare: bareSpawn,
      ...Object.fromEntries(
        Object.entries(servers).map(([name, server]) => [name, () => server.exec("true")]),
      ),
    });
    const bare = summarize(samples.bare);
    for (const name of Object.keys(servers)) {
      const ours = summarize(samples[name]);
      const over = ours.p50 - bare.p50;
      const measured = name === "after";
      if (measured) figures.execOverSpawnMs = over;
      report.row({
        figure: `exec true to completion p50, ${name}`,
        value: fmt.ms(ours.p50),
        baseline: `${fmt.ms(bare.p50)} bare spawn→exit`,
        ratio: `+${fmt.ms(over)}`,
        goal: measured ? `<= bare + ${BUDGETS.execOverSpawnMs} ms` : "",
        ...(measured ? { met: over <= BUDGETS.execOverSpawnMs } : {}),
      });
      report.row({
        figure: "  p95",
        value: fmt.ms(ours.p95),
        baseline: `${fmt.ms(bare.p95)} bare`,
      });
    }
  } finally {
    await Promise.allSettled(Object.values(servers).map((server) => server.close()));
  }
}

async function lineRows(report, workspace, figures) {
  for (const [build, cli] of builds()) {
    const server = await startServer(workspace, { cli });
    try {
      await server.exec("true");
      const before = rssOf(server.pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.pid))), SAMPLE_MS);
      const started = now();
      const answer = await server.exec(LINE_COMMAND);
      const ms = now() - started;
      clearInterval(sampler);
      peak = Math.max(peak, rssOf(server.pid));
      const growth = peak - before;
      const measured = build === "after";
      if (measured) figures.lineGrowthBytes = growth;
      report.row({
        figure: `one 100 MB line: server RSS growth, ${build}`,
        value: fmt.mb(growth),
        baseline: `${fmt.mb(before)} before the call, peak ${fmt.mb(peak)}`,
        ratio: `${fmt.s(ms)}, an answer of ${JSON.stringify(answer).length} bytes`,
        goal: measured ? `< ${fmt.mb(BUDGETS.lineGrowthBytes)}` : "",
        ...(measured ? { met: growth < BUDGETS.lineGrowthBytes } : {}),
      });
    } finally {
      await server.close();
    }
  }
}

async function restRows(report, workspace, figures) {
  const atRest = async (options) => {
    const server = await startServer(workspace, options);
    try {
      for (let i = 0; i < REST_COMMANDS; i++) await server.exec("true");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return rssOf(server.pid);
    } finally {
      await server.close();
    }
  };
  const floor = await atRest({ minimal: true });
  for (const [build, cli] of builds()) {
    const rss = await atRest({ cli });
    const measured = build === "after";
    if (measured) figures.restBytes = rss;
    report.row({
      figure: `server RSS at rest after initialize and ${REST_COMMANDS} commands, ${build}`,
      value: fmt.mb(rss),
      baseline: `${fmt.mb(floor)} a minimal server on the same SDK`,
      ratio: `+${fmt.mb(rss - floor)}`,
      goal: measured ? `<= ${fmt.mb(BUDGETS.restBytes)}` : "",
      ...(measured ? { met: rss <= BUDGETS.restBytes } : {}),
    });
  }
}

header(
  "acp-terminal mcp as an MCP client sees it: exec latency, a 100 MB line, memory at rest",
  `exec: ${ITERATIONS} iterations after ${WARMUP} warm-up, alternating batches of 10 with bare spawns; RSS sampled every ${SAMPLE_MS} ms${BEFORE ? `; before: ${BEFORE}` : ""}`,
);
const report = new Report();
const figures = {};
const workspace = mkdtempSync(path.join(tmpdir(), "bench-mcp-floor-"));
try {
  if (PARTS.has("exec")) await execRows(report, workspace, figures);
  if (PARTS.has("line")) await lineRows(report, workspace, figures);
  if (PARTS.has("rest")) await restRows(report, workspace, figures);
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
report.print();
if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures));
