#!/usr/bin/env node
/**
 * The host over a real stdio connection: this process is the agent (SDK `agent()`), the host
 * runs in a child process (support/terminal-client.mjs, bindTerminalHost). Each figure stands
 * beside the same calls answered by a canned-answer client on the same SDK (the transport floor,
 * support/canned-client.mjs), measured in alternating batches in the same run.
 *
 * - cycle: terminal/create (`true`) → terminal/wait_for_exit → terminal/release, and beside it
 *   also a bare child_process.spawn('true') → 'exit' in this process (what spawning costs) and
 *   the same cycle on a TerminalHost in this process (what the host adds without the wire).
 * - terminal/output with 1 KiB and with 1 MiB retained (a finished terminal whose output is
 *   the same precomputed payload the canned client answers).
 *
 * BENCH_ITERATIONS (default 200) after BENCH_WARMUP (default 20); p50/p95.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { TerminalHost } from "acp-terminal";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { summarize } from "./support/stats.mjs";
import { payload } from "./support/content.mjs";
import { CANNED_CLIENT, startClient, TERMINAL_CLIENT } from "./support/wire.mjs";

const PRINT_PAYLOAD = fileURLToPath(new URL("./support/print-payload.mjs", import.meta.url));
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const SESSION = "bench-session";
const SIZES = { kib: 1024, mib: 1024 * 1024 };

async function cycle(client) {
  const { terminalId } = await client.request("terminal/create", {
    sessionId: SESSION,
    command: "true",
  });
  const exit = await client.request("terminal/wait_for_exit", { sessionId: SESSION, terminalId });
  await client.request("terminal/release", { sessionId: SESSION, terminalId });
  if (exit.exitCode !== 0) throw new Error(`true exited with ${JSON.stringify(exit)}`);
}

const OWNER = { connectionId: "bench", sessionId: SESSION };

async function inProcessCycle(host) {
  const terminalId = await host.create(OWNER, { command: "true" });
  const exit = await host.waitForExit(OWNER, terminalId);
  await host.release(OWNER, terminalId);
  if (exit.exitCode !== 0) throw new Error(`true exited with ${JSON.stringify(exit)}`);
}

async function bareSpawn() {
  const child = spawn("true");
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`spawn('true') exited with ${code}`);
}

/** A finished host terminal holding payload(bytes); checks the output is exactly that. */
async function terminalHolding(client, bytes) {
  const { terminalId } = await client.request("terminal/create", {
    sessionId: SESSION,
    command: process.execPath,
    args: [PRINT_PAYLOAD, String(bytes)],
    outputByteLimit: bytes,
  });
  await client.request("terminal/wait_for_exit", { sessionId: SESSION, terminalId });
  const response = await client.request("terminal/output", { sessionId: SESSION, terminalId });
  if (response.output !== payload(bytes).toString("utf8") || response.truncated) {
    throw new Error(
      `terminal/output of a ${bytes}-byte payload came back different (${response.output.length} chars)`,
    );
  }
  return terminalId;
}

async function outputOf(client, terminalId, bytes) {
  const response = await client.request("terminal/output", { sessionId: SESSION, terminalId });
  if (response.output.length === 0 || response._meta?.["acp-terminal"]?.totalBytes !== bytes) {
    throw new Error(`terminal/output of ${terminalId}: unexpected response`);
  }
}

export async function main() {
  header(
    "host-wire: the five methods over real stdio (agent here, host in a child process)",
    `floor: a canned-answer client on the same SDK; ${ITERATIONS} iterations after ${WARMUP} warm-up, alternating batches; p50/p95`,
  );
  const hosted = await startClient(TERMINAL_CLIENT, { host: { maxOutputByteLimit: SIZES.mib } });
  const canned = await startClient(CANNED_CLIENT);
  const local = new TerminalHost();
  const options = { warmup: WARMUP, iterations: ITERATIONS, batch: 10 };
  try {
    const cycles = await alternate(
      {
        host: () => cycle(hosted.client),
        floor: () => cycle(canned.client),
        spawn: bareSpawn,
        local: () => inProcessCycle(local),
      },
      options,
    );
    const ids = {
      kib: await terminalHolding(hosted.client, SIZES.kib),
      mib: await terminalHolding(hosted.client, SIZES.mib),
    };
    const outputs = {};
    for (const size of ["kib", "mib"]) {
      outputs[size] = await alternate(
        {
          host: () => outputOf(hosted.client, ids[size], SIZES[size]),
          floor: () => outputOf(canned.client, size, SIZES[size]),
        },
        options,
      );
    }

    const report = new Report();
    const host = summarize(cycles.host);
    const floor = summarize(cycles.floor);
    const spawned = summarize(cycles.spawn);
    const inProcess = summarize(cycles.local);
    for (const p of ["p50", "p95"]) {
      report.row({
        figure: `cycle create→wait_for_exit→release (true) ${p}`,
        value: fmt.ms(host[p]),
        baseline: `${fmt.ms(floor[p])} floor`,
        ratio: `+${fmt.ms(host[p] - floor[p])}`,
        goal: "<= floor + 2 ms",
        met: host[p] <= floor[p] + 2,
      });
    }
    report.row({
      figure: "  cycle - floor vs bare spawn('true')→exit p50",
      value: fmt.ms(host.p50 - floor.p50),
      baseline: `${fmt.ms(spawned.p50)} spawn (p95 ${fmt.ms(spawned.p95)})`,
      ratio: fmt.ratio((host.p50 - floor.p50) / spawned.p50),
      goal: "(spawn cost is the part the host cannot avoid)",
    });
    report.row({
      figure: "  same cycle on a TerminalHost in this process p50",
      value: fmt.ms(inProcess.p50),
      baseline: `${fmt.ms(spawned.p50)} spawn`,
      ratio: `+${fmt.ms(inProcess.p50 - spawned.p50)}`,
    });
    for (const size of ["kib", "mib"]) {
      const h = summarize(outputs[size].host);
      const f = summarize(outputs[size].floor);
      for (const p of ["p50", "p95"]) {
        report.row({
          figure: `terminal/output, ${size === "kib" ? "1 KiB" : "1 MiB"} retained ${p}`,
          value: fmt.ms(h[p]),
          baseline: `${fmt.ms(f[p])} floor`,
          ratio: fmt.ratio(h[p] / f[p]),
          goal: "<= 1.2x floor",
          met: h[p] <= 1.2 * f[p],
        });
      }
    }
    report.print();
  } finally {
    await Promise.all([hosted.stop(), canned.stop(), local.dispose()]);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
