#!/usr/bin/env node
/**
 * `acp-terminal mcp` over real stdio against the direct calls it wraps, in the same run:
 *   - latency: the `exec` tool running `true` through the MCP SDK v2 client (2025 handshake and
 *     2026-07-28) vs ProcessManager.run of `true` over a local TerminalHost in this process
 *     (alternating batches; BENCH_ITERATIONS, default 100, after BENCH_WARMUP, default 10);
 *   - throughput: a 100 MB output (`yes | head -c 100000000`) through `exec` (the answer carries
 *     the tail) vs a plain read of the same command's stdout through a pipe (BENCH_BIG_RUNS, default 3).
 * Also prints the protocol revision each client negotiated.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { LocalTerminalProvider, ProcessManager } from "acp-process";
import { TerminalHost } from "acp-terminal";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { now, summarize } from "./support/stats.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const BIG_RUNS = Number(process.env.BENCH_BIG_RUNS ?? 3);
const BIG_BYTES = 100_000_000;
const BIG_COMMAND = `yes | head -c ${BIG_BYTES}`;
const CLI = fileURLToPath(new URL("../packages/acp-terminal-cli/dist/main.js", import.meta.url));

async function connect(workspace, modern) {
  const client = new Client(
    { name: "bench", version: "1.0.0" },
    modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--workspace", workspace, "--yes"],
      stderr: "ignore",
    }),
  );
  return client;
}

async function execTool(client, command) {
  const result = await client.callTool(
    { name: "exec", arguments: { command, yieldMs: 120_000 } },
    { timeout: 300_000 },
  );
  const answer = result.structuredContent;
  if (result.isError || answer?.status !== "completed")
    throw new Error(`exec ${command}: ${JSON.stringify(result).slice(0, 500)}`);
  return answer;
}

async function direct(manager, command) {
  const { run } = await manager.run({
    sessionId: "bench",
    command,
    timeoutMs: 300_000,
    yieldMs: 120_000,
  });
  if (run.status !== "completed")
    throw new Error(`ProcessManager.run ${command}: ${run.status} ${run.error ?? ""}`);
  manager.remove(run.id, { sessionId: "bench" });
  return run;
}

/** Reads the command's stdout through a pipe to the end; resolves with the byte count. */
function plainRead(command) {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => (bytes += chunk.length));
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve(bytes) : reject(new Error(`${command} exited ${code}`)),
    );
  });
}

header(
  "acp-terminal mcp over stdio",
  `exec of true: ${ITERATIONS} iterations after ${WARMUP} warm-up, alternating batches; ${BIG_RUNS} runs of a ${fmt.mb(BIG_BYTES)} output`,
);
const report = new Report();
const workspace = mkdtempSync(path.join(tmpdir(), "bench-mcp-"));
const host = new TerminalHost({ cwd: workspace });
const manager = new ProcessManager({
  provider: new LocalTerminalProvider(host),
  env: {},
  sweepIntervalMs: 0,
});
const legacy = await connect(workspace, false);
const modern = await connect(workspace, true);
try {
  report.note(
    `negotiated: v2 client default ${legacy.getNegotiatedProtocolVersion()}, v2 client pinned ${modern.getNegotiatedProtocolVersion()}`,
  );
  const samples = await alternate(
    {
      direct: () => direct(manager, "true"),
      legacy: () => execTool(legacy, "true"),
      modern: () => execTool(modern, "true"),
    },
    { warmup: WARMUP, iterations: ITERATIONS },
  );
  const base = summarize(samples.direct);
  for (const [name, label] of [
    ["legacy", "2025-11-25"],
    ["modern", "2026-07-28"],
  ]) {
    const ours = summarize(samples[name]);
    for (const p of ["p50", "p95"]) {
      report.row({
        figure: `exec true via MCP ${label}: ${p}`,
        value: fmt.ms(ours[p]),
        baseline: `${fmt.ms(base[p])} ProcessManager.run`,
        ratio: fmt.ratio(ours[p] / base[p]),
      });
    }
  }

  const plain = [];
  const tool = [];
  for (let i = 0; i < BIG_RUNS; i++) {
    let started = now();
    const bytes = await plainRead(BIG_COMMAND);
    if (bytes !== BIG_BYTES) throw new Error(`plain read got ${bytes} bytes`);
    plain.push(now() - started);
    started = now();
    const answer = await execTool(legacy, BIG_COMMAND);
    if (!answer.truncated) throw new Error("a 100 MB output must come back truncated");
    tool.push(now() - started);
  }
  const plainMs = summarize(plain).p50;
  const toolMs = summarize(tool).p50;
  report.row({
    figure: "100 MB output through exec: p50",
    value: `${fmt.s(toolMs)} (${fmt.mbps(BIG_BYTES / 1e6 / (toolMs / 1000))})`,
    baseline: `${fmt.s(plainMs)} (${fmt.mbps(BIG_BYTES / 1e6 / (plainMs / 1000))}) plain pipe read`,
    ratio: fmt.ratio(toolMs / plainMs),
  });
  report.note(
    "the exec answer carries the last 200000 characters (truncated: true); the host reads and counts every byte",
  );
} finally {
  await Promise.allSettled([legacy.close(), modern.close()]);
  await manager.dispose();
  await host.dispose();
  rmSync(workspace, { recursive: true, force: true });
}
report.print();
