#!/usr/bin/env node
/**
 * What containment costs per terminal.
 *
 *   - create→exit: the cycle TerminalHost.create(`true`) → waitForExit → release, in this process,
 *     with `containment: "off"` (process group + the reaper) and `"auto"` (the default: the
 *     launcher's process tree where available), pipes and PTY; baseline: a plain detached
 *     spawn('true') with pipes, waited to 'close'. Alternating batches.
 *   - the reaper: starting it (once per host), and one terminal's `+pgid`/`-pgid` lines; its RSS.
 *   - the processes a live terminal adds besides its command, and their RSS, per mode: the relay
 *     (process-tree); the unshare'd sh, its init and the relay (pid-namespace, with a spare started
 *     ahead so a create does not wait for one).
 * BENCH_ITERATIONS (default 100) after BENCH_WARMUP (default 10), BENCH_IDLE_MS (default 20)
 * idle after each iteration; p50/p95.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TerminalHost } from "acp-terminal";
import { Reaper } from "../packages/acp-terminal/dist/contain/reaper.js";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { now, summarize } from "./support/stats.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
/**
 * Idle time after each iteration, every variant alike: an agent's commands are not back to back,
 * and the spare namespace a contained host keeps ahead starts in between (0: back to back).
 */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 20);
const idle = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS));
const OWNER = { connectionId: "bench", sessionId: "containment" };

/** A timed iteration (ms), then the idle time, not counted. */
async function timed(body) {
  const started = now();
  await body();
  const ms = now() - started;
  await idle();
  return ms;
}

function plain() {
  return timed(async () => {
    const child = spawn("true", [], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    child.stdout.resume();
    child.stderr.resume();
    await once(child, "close");
  });
}

async function cycle(host, pty) {
  const terminalId = await host.create(OWNER, { command: "true", args: [], pty });
  await host.waitForExit(OWNER, terminalId);
  await host.release(OWNER, terminalId);
}

/** VmRSS of a process in bytes, 0 if it is gone. */
function rssOf(pid) {
  try {
    return (
      Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) *
      1024
    );
  } catch {
    return 0;
  }
}

/** Every descendant of `pid` (by /proc ppid), not `pid` itself. */
function descendants(pid) {
  const parents = new Map();
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = [];
  for (let frontier = [pid]; frontier.length > 0;) {
    frontier = [...parents]
      .filter(([, parent]) => frontier.includes(parent))
      .map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

/**
 * Processes each further live `sleep` terminal adds besides its command, and their RSS: counted
 * with 1 and with 5 terminals alive (so the reaper and the spare namespace, once per host, cancel out).
 */
async function perTerminalProcesses(containment) {
  const host = new TerminalHost({ containment });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300)); // the spare's start
  const extra = (ids) => {
    const commands = new Set(ids.map((id) => host.info(id)?.pid));
    const pids = descendants(process.pid).filter((pid) => !commands.has(pid));
    return { processes: pids.length, bytes: pids.reduce((sum, pid) => sum + rssOf(pid), 0) };
  };
  try {
    const ids = [await host.create(OWNER, { command: "sleep", args: ["30"] })];
    await settle();
    const one = extra(ids);
    for (let i = 0; i < 4; i++)
      ids.push(await host.create(OWNER, { command: "sleep", args: ["30"] }));
    await settle();
    const five = extra(ids);
    // Rounded: a process of an earlier host that ends between the two counts is not this host's.
    return {
      processes: Math.round((five.processes - one.processes) / 4),
      bytes: Math.max(0, (five.bytes - one.bytes) / 4),
    };
  } finally {
    await host.dispose();
  }
}

function reaperCosts() {
  const reaper = new Reaper();
  const started = now();
  reaper.track(2 ** 22 + 1); // beyond pid_max's default: a pgid no process has
  const startMs = now() - started;
  const lines = 10_000;
  const begin = now();
  for (let i = 0; i < lines; i++) {
    reaper.track(2 ** 22 + 2 + i);
    reaper.untrack(2 ** 22 + 2 + i);
  }
  const perTerminalUs = ((now() - begin) / lines) * 1000;
  const rss = rssOf(reaper.pid); // after the exec, which the lines above gave time for
  reaper.close();
  return { startMs, rss, perTerminalUs };
}

export async function main() {
  header(
    "host-containment: what the reaper and the default containment (the launcher's process tree) cost",
    `create('true') → waitForExit → release; ${ITERATIONS} iterations after ${WARMUP} warm-up, ${IDLE_MS} ms idle after each, alternating batches; p50/p95`,
  );
  const off = new TerminalHost({ containment: "off" });
  const auto = new TerminalHost({ containment: "auto" });
  const mode = auto.containment;
  try {
    const samples = await alternate(
      {
        plain,
        off: () => timed(() => cycle(off, false)),
        auto: () => timed(() => cycle(auto, false)),
        offPty: () => timed(() => cycle(off, true)),
        autoPty: () => timed(() => cycle(auto, true)),
      },
      { warmup: WARMUP, iterations: ITERATIONS, batch: 10 },
    );
    const s = Object.fromEntries(
      Object.entries(samples).map(([name, values]) => [name, summarize(values)]),
    );
    const report = new Report();
    for (const p of ["p50", "p95"]) {
      report.row({
        figure: `pipes, process-group + reaper ${p}`,
        value: fmt.ms(s.off[p]),
        baseline: `${fmt.ms(s.plain[p])} plain spawn→close`,
        ratio: `+${fmt.ms(s.off[p] - s.plain[p])}`,
      });
      report.row({
        figure: `pipes, ${mode} ${p}`,
        value: fmt.ms(s.auto[p]),
        baseline: `${fmt.ms(s.off[p])} process-group`,
        ratio: `+${fmt.ms(s.auto[p] - s.off[p])}`,
        goal: "<= +5 ms",
        met: s.auto[p] - s.off[p] <= 5,
      });
      report.row({
        figure: `PTY, process-group + reaper ${p}`,
        value: fmt.ms(s.offPty[p]),
        baseline: `${fmt.ms(s.plain[p])} plain spawn→close`,
        ratio: `+${fmt.ms(s.offPty[p] - s.plain[p])}`,
      });
      report.row({
        figure: `PTY, ${mode} ${p}`,
        value: fmt.ms(s.autoPty[p]),
        baseline: `${fmt.ms(s.offPty[p])} process-group`,
        ratio: `+${fmt.ms(s.autoPty[p] - s.offPty[p])}`,
        goal: "<= +5 ms",
        met: s.autoPty[p] - s.offPty[p] <= 5,
      });
    }
    const reaper = reaperCosts();
    report.row({
      figure: "reaper start (once per host)",
      value: fmt.ms(reaper.startMs),
      baseline: `${fmt.ms(s.plain.p50)} plain spawn→close p50`,
    });
    report.row({
      figure: "reaper per terminal (+pgid, -pgid)",
      value: `${reaper.perTerminalUs.toFixed(1)} µs`,
      baseline: `${fmt.ms(s.off.p50)} a terminal's cycle p50`,
    });
    report.row({ figure: "reaper RSS (once per host)", value: fmt.mb(reaper.rss) });
    for (const containment of ["off", "auto", "pid-namespace"]) {
      const { processes, bytes } = await perTerminalProcesses(containment);
      report.row({
        figure: `processes per live terminal besides the command, ${containment}`,
        value: `${processes}, RSS ${fmt.mb(bytes)}`,
      });
    }
    report.note(`containment "auto" is ${mode} on this machine`);
    report.note("RSS counts shared pages in every process (an upper bound)");
    report.print();
  } finally {
    await Promise.all([off.dispose(), auto.dispose()]);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
