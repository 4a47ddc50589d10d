#!/usr/bin/env node
/**
 * What background polling costs, whole snapshots vs exact increments, over ACP against our host
 * (support/terminal-client.mjs): a command prints BENCH_MB (default 10) MB at BENCH_RATE_MBPS
 * (default 2) MB/s with outputByteLimit BENCH_LIMIT_BYTES (default 1 MiB), and a ProcessManager
 * polls it in the background (nobody reading) until it ends. Two providers on the same
 * connection, alternating BENCH_ROUNDS (default 2) times. A second scenario prints 1 MiB and then
 * stays quiet BENCH_QUIET_S (default 3) s: what polling an idle run costs.
 *   - whole snapshots: the client's capabilities with `outputSince` removed (cursors still exact);
 *   - sinceByte: exact increments, as advertised.
 * Per variant: terminal/output calls, output bytes and JSON bytes the agent received (and per
 * second of the run), agent CPU (this process) and client CPU (its process, from /proc), and the
 * bytes the run saw + lost (must add up to what was printed).
 */
import { readFileSync } from "node:fs";
import { terminalClientCapabilities } from "acp-terminal";
import { AcpTerminalProvider, ProcessManager } from "acp-process";
import { fmt, header, Report } from "./support/report.mjs";
import { startClient, TERMINAL_CLIENT } from "./support/wire.mjs";

const MB = Number(process.env.BENCH_MB ?? 10);
const RATE_MBPS = Number(process.env.BENCH_RATE_MBPS ?? 2);
const LIMIT_BYTES = Number(process.env.BENCH_LIMIT_BYTES ?? 1024 * 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SESSION = "bench-session";
const TOTAL_BYTES = MB * 1_000_000;
const TICK_MS = 10;
const LINE = "x".repeat(99) + "\n";
const QUIET_S = Number(process.env.BENCH_QUIET_S ?? 3);

/** Prints `bytes` of 100-byte lines, RATE_MBPS * TICK_MS worth every TICK_MS, then stays quiet `quietMs`. */
function printer(bytes, quietMs) {
  const perTick = Math.max(1, Math.round((RATE_MBPS * 1e6 * TICK_MS) / 1000 / LINE.length));
  return {
    command: process.execPath,
    args: [
      "-e",
      `const line=${JSON.stringify(LINE)};const per=${perTick};const block=line.repeat(per);let left=${Math.round(bytes / LINE.length)};` +
        `const t=setInterval(()=>{const n=Math.min(per,left);left-=n;process.stdout.write(n===per?block:line.repeat(n));` +
        `if(left===0){clearInterval(t);setTimeout(()=>{},${quietMs})}},${TICK_MS})`,
    ],
  };
}

/** Counts what `terminal/output` brings to the agent. */
class CountingRequester {
  calls = 0;
  outputBytes = 0;
  jsonBytes = 0;
  constructor(inner) {
    this.inner = inner;
  }
  async request(method, params) {
    const response = await this.inner.request(method, params);
    if (method === "terminal/output") {
      this.calls++;
      this.outputBytes += Buffer.byteLength(response.output, "utf8");
      this.jsonBytes += Buffer.byteLength(JSON.stringify(response), "utf8");
    }
    return response;
  }
}

/** User + system CPU of a process in ms, from /proc (Linux). */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

function withoutOutputSince(capabilities) {
  return {
    ...capabilities,
    _meta: { "acp-terminal": { ...capabilities._meta["acp-terminal"], outputSince: false } },
  };
}

async function measure(wire, clientCapabilities, scenario) {
  const counting = new CountingRequester(wire.client);
  const provider = new AcpTerminalProvider(counting, { sessionId: SESSION, clientCapabilities });
  const manager = new ProcessManager({
    provider,
    env: {},
    sweepIntervalMs: 0,
    tuning: { outputByteLimit: LIMIT_BYTES },
  });
  const agentCpu = process.cpuUsage();
  const clientCpu = processCpuMs(wire.child.pid);
  const started = performance.now();
  const { run } = await manager.run({
    sessionId: SESSION,
    ...printer(scenario.bytes, scenario.quietMs),
    yieldMs: 600_000,
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(agentCpu);
  const result = {
    seconds,
    calls: counting.calls,
    outputBytes: counting.outputBytes,
    jsonBytes: counting.jsonBytes,
    agentCpuMs: (cpu.user + cpu.system) / 1000,
    clientCpuMs: processCpuMs(wire.child.pid) - clientCpu,
    seen: run.outputBytes,
    lost: run.lostBytes,
    lostUnknown: run.lostUnknown,
  };
  await manager.dispose();
  if (run.status !== "completed") throw new Error(`printer ended ${run.status}: ${run.error}`);
  if (result.seen + result.lost !== scenario.bytes)
    throw new Error(`saw ${result.seen} + lost ${result.lost} bytes, printed ${scenario.bytes}`);
  return result;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

header(
  "acp-process background polling: whole snapshots vs exact increments (ACP over stdio)",
  `${MB} MB printed at ${RATE_MBPS} MB/s; then 1 MiB printed and ${QUIET_S} s quiet; outputByteLimit ${LIMIT_BYTES} bytes; ${ROUNDS} rounds alternating, medians`,
);
const SCENARIOS = [
  { name: `${MB} MB`, bytes: TOTAL_BYTES, quietMs: 0 },
  {
    name: `1 MiB + ${QUIET_S} s quiet`,
    bytes: 1024 * 1024 - ((1024 * 1024) % LINE.length),
    quietMs: QUIET_S * 1000,
  },
];
const report = new Report();
const wire = await startClient(TERMINAL_CLIENT);
try {
  const advertised = terminalClientCapabilities();
  for (const scenario of SCENARIOS) {
    /** @type {{ snapshots: Awaited<ReturnType<typeof measure>>[]; since: Awaited<ReturnType<typeof measure>>[] }} */
    const results = { snapshots: [], since: [] };
    for (let round = 0; round < ROUNDS; round++) {
      results.snapshots.push(await measure(wire, withoutOutputSince(advertised), scenario));
      results.since.push(await measure(wire, advertised, scenario));
    }
    const pick = (variant, key) => median(results[variant].map((r) => r[key]));
    const perSecond = (variant, key) => median(results[variant].map((r) => r[key] / r.seconds));
    const rows = /** @type {const} */ ([
      ["output bytes received per s", (v) => perSecond(v, "outputBytes"), (x) => fmt.mb(x) + "/s"],
      ["JSON bytes received per s", (v) => perSecond(v, "jsonBytes"), (x) => fmt.mb(x) + "/s"],
      ["output bytes received in all", (v) => pick(v, "outputBytes"), fmt.mb],
      ["terminal/output calls", (v) => pick(v, "calls"), (x) => String(x)],
      ["agent CPU", (v) => pick(v, "agentCpuMs"), (x) => `${x.toFixed(0)} ms`],
      ["client CPU", (v) => pick(v, "clientCpuMs"), (x) => `${x.toFixed(0)} ms`],
      ["run duration", (v) => pick(v, "seconds") * 1000, fmt.s],
    ]);
    for (const [figure, value, format] of rows) {
      const since = value("since");
      const snapshots = value("snapshots");
      report.row({
        figure: `${scenario.name}, sinceByte: ${figure}`,
        value: format(since),
        baseline: `${format(snapshots)} whole snapshots`,
        ratio: fmt.ratio(since / snapshots),
      });
    }
    for (const variant of ["snapshots", "since"]) {
      const lost = results[variant].map((r) => `${r.lost}${r.lostUnknown ? "?" : ""}`).join(", ");
      report.note(
        `${scenario.name}, ${variant}: bytes lost per round ${lost} (seen + lost = printed, checked)`,
      );
    }
  }
} finally {
  await wire.stop();
}
report.print();
