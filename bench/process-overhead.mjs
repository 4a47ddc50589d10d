#!/usr/bin/env node
/**
 * Overhead of a foreground run through acp-process (ProcessManager.run: create, adaptive output
 * polling, wait_for_exit, final read, release, items, events) versus the bare calls an agent
 * would make itself (create → wait_for_exit → output → release), with the same provider and the
 * same command (`echo hi`), in alternating batches in the same run:
 *   - over ACP: this process is the agent, support/terminal-client.mjs hosts the terminals;
 *   - local: an in-process TerminalHost through LocalTerminalProvider vs the host's own calls.
 * BENCH_ITERATIONS (default 200) after BENCH_WARMUP (default 20); p50/p95.
 */
import { TerminalHost } from "acp-terminal";
import { AcpTerminalProvider, LocalTerminalProvider, ProcessManager } from "acp-process";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { summarize } from "./support/stats.mjs";
import { startClient, TERMINAL_CLIENT } from "./support/wire.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const SESSION = "bench-session";
const COMMAND = { command: "echo", args: ["hi"] };

function check(output, exitCode, what) {
  if (output !== "hi\n" || exitCode !== 0)
    throw new Error(
      `${what}: expected "hi\\n" and exit 0, got ${JSON.stringify(output)} / ${exitCode}`,
    );
}

async function bareAcp(client) {
  const { terminalId } = await client.request("terminal/create", {
    sessionId: SESSION,
    ...COMMAND,
  });
  const exit = await client.request("terminal/wait_for_exit", { sessionId: SESSION, terminalId });
  const { output } = await client.request("terminal/output", { sessionId: SESSION, terminalId });
  await client.request("terminal/release", { sessionId: SESSION, terminalId });
  check(output, exit.exitCode, "bare ACP calls");
}

async function bareLocal(host, owner) {
  const terminalId = await host.create(owner, COMMAND);
  const exit = await host.waitForExit(owner, terminalId);
  const { output } = host.output(owner, terminalId);
  await host.release(owner, terminalId);
  check(output, exit.exitCode, "bare host calls");
}

async function managed(manager) {
  const { run } = await manager.run({
    sessionId: SESSION,
    ...COMMAND,
    timeoutMs: 60_000,
    yieldMs: 60_000,
  });
  check(manager.tail(run.id).text, run.exitCode, "ProcessManager.run");
  manager.remove(run.id);
}

/** Alternates bare calls with managed runs over `provider` and reports p50 and p95 of both. */
async function compare(label, provider, bare) {
  const manager = new ProcessManager({ provider, env: {}, sweepIntervalMs: 0 });
  try {
    const samples = await alternate(
      { bare, managed: () => managed(manager) },
      { warmup: WARMUP, iterations: ITERATIONS },
    );
    const base = summarize(samples.bare);
    const ours = summarize(samples.managed);
    for (const p of ["p50", "p95"]) {
      report.row({
        figure: `${label}: run ${p}`,
        value: fmt.ms(ours[p]),
        baseline: `${fmt.ms(base[p])} bare calls`,
        ratio: fmt.ratio(ours[p] / base[p]),
      });
    }
  } finally {
    await manager.dispose();
  }
}

header(
  "acp-process foreground overhead",
  `echo hi, ${ITERATIONS} iterations after ${WARMUP} warm-up, alternating batches`,
);
const report = new Report();

const wire = await startClient(TERMINAL_CLIENT);
try {
  const { terminalClientCapabilities } = await import("acp-terminal");
  const provider = new AcpTerminalProvider(wire.client, {
    sessionId: SESSION,
    clientCapabilities: terminalClientCapabilities(),
  });
  await compare("ACP over stdio", provider, () => bareAcp(wire.client));
} finally {
  await wire.stop();
}

const host = new TerminalHost();
try {
  const owner = { connectionId: "bench", sessionId: SESSION };
  await compare("local host", new LocalTerminalProvider(host, { owner }), () =>
    bareLocal(host, owner),
  );
} finally {
  await host.dispose();
}
report.note(
  "the managed run also polls terminal/output while the command runs and records items and events",
);
report.print();
