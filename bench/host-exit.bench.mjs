#!/usr/bin/env node
/**
 * Exit detection: the time from a command's last act to its exit being known.
 *
 * The command is `bash -c 'echo $EPOCHREALTIME'`: it prints its wall-clock time (µs) and exits.
 * Each observer takes its own wall-clock time (performance.timeOrigin + performance.now(), the
 * same clock) when it learns of the exit; the difference is the latency, including bash's own
 * exit. Observers, in alternating batches:
 *   - plain: child_process.spawn → 'exit' (the floor: the parent learns of the exit at all)
 *   - plain + drained: spawn → 'close' (exit and both pipes at EOF, as the host waits for)
 *   - host: TerminalHost.create → waitForExit() resolving, in this process
 *   - wire: terminal/create → terminal/wait_for_exit answered over stdio by a host in a child
 *     process (support/terminal-client.mjs); the agent is this process.
 * BENCH_ITERATIONS (default 100) after BENCH_WARMUP (default 10); p50/p95.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { TerminalHost } from "acp-terminal";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { summarize, wallMs } from "./support/stats.mjs";
import { startClient, TERMINAL_CLIENT } from "./support/wire.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const COMMAND = "bash";
const ARGS = ["-c", "echo $EPOCHREALTIME"];
const OWNER = { connectionId: "bench", sessionId: "exit" };
const SESSION = "bench-session";

/** The child's own end time (ms) from what it printed. */
function endedAt(output) {
  const seconds = Number.parseFloat(output.trim().replace(",", "."));
  if (!Number.isFinite(seconds)) throw new Error(`no timestamp in ${JSON.stringify(output)}`);
  return seconds * 1000;
}

async function plain(event) {
  const child = spawn(COMMAND, ARGS, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
  // Both listeners first: 'close' may follow 'exit' in the same tick.
  const closed = once(child, "close");
  await once(child, event);
  const known = wallMs();
  await closed; // the timestamp may still be in the pipe
  return known - endedAt(output);
}

async function hosted(host) {
  const terminalId = await host.create(OWNER, { command: COMMAND, args: ARGS });
  await host.waitForExit(OWNER, terminalId);
  const known = wallMs();
  const { output } = host.output(OWNER, terminalId);
  await host.release(OWNER, terminalId);
  return known - endedAt(output);
}

async function overWire(client) {
  const { terminalId } = await client.request("terminal/create", {
    sessionId: SESSION,
    command: COMMAND,
    args: ARGS,
  });
  await client.request("terminal/wait_for_exit", { sessionId: SESSION, terminalId });
  const known = wallMs();
  const { output } = await client.request("terminal/output", { sessionId: SESSION, terminalId });
  await client.request("terminal/release", { sessionId: SESSION, terminalId });
  return known - endedAt(output);
}

export async function main() {
  header(
    "host-exit: from the command's end to its exit being known",
    `command: bash -c 'echo $EPOCHREALTIME'; ${ITERATIONS} iterations after ${WARMUP} warm-up, alternating batches; p50/p95`,
  );
  const host = new TerminalHost();
  const wire = await startClient(TERMINAL_CLIENT);
  try {
    const samples = await alternate(
      {
        plain: () => plain("exit"),
        drained: () => plain("close"),
        host: () => hosted(host),
        wire: () => overWire(wire.client),
      },
      { warmup: WARMUP, iterations: ITERATIONS, batch: 10 },
    );
    const floor = summarize(samples.plain);
    const drained = summarize(samples.drained);
    const report = new Report();
    for (const [name, label] of [
      ["host", "TerminalHost.waitForExit"],
      ["wire", "terminal/wait_for_exit over stdio"],
    ]) {
      const s = summarize(samples[name]);
      for (const p of ["p50", "p95"]) {
        report.row({
          figure: `${label} ${p}`,
          value: fmt.ms(s[p]),
          baseline: `${fmt.ms(floor[p])} spawn→exit, ${fmt.ms(drained[p])} →close`,
          ratio: `+${fmt.ms(s[p] - floor[p])}`,
          goal: "<= 2 ms",
          met: s[p] <= 2,
        });
      }
    }
    report.note("latency includes bash's own exit after it printed; the baselines include it too");
    report.print();
  } finally {
    await host.dispose();
    await wire.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
