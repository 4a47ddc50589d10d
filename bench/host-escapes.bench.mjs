#!/usr/bin/env node
/**
 * The containment table: for each way a command tries to outlive its terminal, and each way the
 * terminal ends, how many of the processes it started are left, per containment mode of the host
 * (`auto`: process-tree, `pid-namespace`, `off`: process-group), pipes. Beside the process-group
 * row, what two other candidate mechanisms would have found of what was left: a sweep of /proc for
 * a marker variable every process inherits through its environment, and the kernel's session id.
 *
 * Every process is marked (a `sleep` duration no other process uses) and counted from /proc.
 * Not a timing benchmark: the figure is "left / started", the baseline the same command under the
 * other modes. The CLI's own faults (agent crash, SIGINT, SIGTERM, SIGHUP, SIGKILL) are asserted
 * by test/cli-containment.integration.test.ts.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TerminalHost } from "acp-terminal";
import { header } from "./support/report.mjs";

const HOST_DIES = fileURLToPath(
  new URL("../packages/acp-terminal/test/fixtures/host-dies.mjs", import.meta.url),
);
/** @type {("auto" | "pid-namespace" | "off")[]} */
const MODES = ["auto", "pid-namespace", "off"];
const OWNER = { connectionId: "bench", sessionId: "escapes" };
/** The variable a marker sweep would look for. */
const MARK = "BENCH_ESCAPE_MARK";

/**
 * Each escape: its command (MARKER is replaced) and how many `sleep`s it ends up running (counted
 * once they run: an escape's `setsid` or `sh` carries the marker too, before it has left the group).
 */
/** @type {[string, string, number][]} */
const ESCAPES = [
  ["a background child", "sleep MARKER & exec sleep MARKER", 2],
  [
    "nohup, ignoring SIGTERM",
    `nohup sh -c 'trap "" TERM HUP INT; sleep MARKER' >/dev/null 2>&1 & exec sleep MARKER`,
    2,
  ],
  ["setsid", "setsid sleep MARKER & exec sleep MARKER", 2],
  ["setsid -f", "setsid -f sleep MARKER; exec sleep MARKER", 2],
  [
    "double fork into a new session",
    "(setsid sh -c 'sleep MARKER & exit 0' &); exec sleep MARKER",
    2,
  ],
  [
    "env -i, setsid, double fork",
    "(env -i /usr/bin/setsid /bin/sh -c '/bin/sleep MARKER & exit 0' &); exec sleep MARKER",
    2,
  ],
];

let counter = 0;
const newMarker = () => `800.${process.pid % 1000}${String(counter++).padStart(4, "0")}`;

/** Pids of live processes whose command line holds `marker`, with their environ and session. */
function marked(marker) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z") continue;
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      const sleeping = /^(\/bin\/)?sleep\0/.test(readFileSync(`/proc/${entry}/cmdline`, "utf8"));
      found.push({ pid: Number(entry), sid: Number(fields[3]), environ, sleeping });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function until(check, ms) {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return check();
}

function cleanUp(marker) {
  for (const { pid } of marked(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Runs one escape under one mode and fault; returns what was left and what sweeps would find. */
async function trial(mode, [, template, sleeps], fault) {
  const marker = newMarker();
  const afterExit = fault === "release after its exit";
  const command = template
    .replaceAll("MARKER", marker)
    .replace(afterExit ? /exec sleep \S+$/ : /$^/, "true");
  const sleeping = afterExit ? sleeps - 1 : sleeps;
  const host = new TerminalHost({ containment: mode, killGraceMs: 200, exitDrainGraceMs: 100 });
  try {
    const id = await host.create(OWNER, { command, env: [{ name: MARK, value: marker }] });
    const sid = host.info(id)?.pid;
    if (!(await until(() => marked(marker).filter((p) => p.sleeping).length >= sleeping, 10_000)))
      throw new Error(
        `${command} did not start ${sleeping} sleeps (${mode}): ${JSON.stringify(host.output(OWNER, id))} ${JSON.stringify(host.info(id))}\n${(await import("node:child_process")).execSync("ps -eo pid,ppid,stat,args | grep -E 'acp-terminal|800\\.' | grep -v grep || true")}`,
      );
    const started = marked(marker).length;
    if (fault === "kill") await host.kill(OWNER, id);
    else {
      if (afterExit) await host.waitForExit(OWNER, id);
      await host.release(OWNER, id);
    }
    await until(() => marked(marker).length === 0, 2_000);
    const left = marked(marker);
    return {
      left: left.length,
      started,
      byEnvironment: left.filter((p) => p.environ.includes(`${MARK}=${marker}`)).length,
      bySession: left.filter((p) => p.sid === sid).length,
    };
  } finally {
    await host.dispose();
    cleanUp(marker);
  }
}

/** The host process itself SIGKILLed with every escape running in pipes and a PTY. */
async function hostKilled(mode) {
  const marker = newMarker();
  const commands = ESCAPES.map(([, template]) => template.replaceAll("MARKER", marker));
  const sleeps = 2 * ESCAPES.reduce((sum, [, , n]) => sum + n, 0);
  const child = spawn(process.execPath, [HOST_DIES, mode, JSON.stringify(commands)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
  try {
    const running = () => marked(marker).filter((p) => p.sleeping).length >= sleeps;
    if (!(await until(() => stdout.includes("ready") && running(), 15_000)))
      throw new Error(`the host did not start its ${sleeps} sleeps`);
    const started = marked(marker).length;
    child.kill("SIGKILL");
    await once(child, "exit");
    await until(() => marked(marker).length === 0, 3_000);
    return { left: marked(marker).length, started };
  } finally {
    child.kill("SIGKILL");
    cleanUp(marker);
  }
}

export async function main() {
  header(
    "host-escapes: processes left after each fault, per containment mode (pipes)",
    "left / started; a marker sweep (environment) and a session-id sweep are what they would have found of what process-group left",
  );
  const faults = ["kill", "release", "release after its exit"];
  const modeNames = {};
  for (const mode of MODES) modeNames[mode] = new TerminalHost({ containment: mode }).containment;
  const rows = [];
  for (const escape of ESCAPES) {
    for (const fault of faults) {
      const cells = {};
      for (const mode of MODES) cells[mode] = await trial(mode, escape, fault);
      rows.push({ escape: escape[0], fault, cells });
    }
  }
  const killed = {};
  for (const mode of MODES) killed[mode] = await hostKilled(mode);

  const columns = [
    "escape",
    "fault",
    ...MODES.map((mode) => `${modeNames[mode]} (${mode})`),
    "env marker would find",
    "session id would find",
  ];
  const table = rows.map(({ escape, fault, cells }) => [
    escape,
    fault,
    ...MODES.map((mode) => `${cells[mode].left}/${cells[mode].started} left`),
    `${cells.off.byEnvironment}/${cells.off.left}`,
    `${cells.off.bySession}/${cells.off.left}`,
  ]);
  table.push([
    "all of them, pipes and PTY",
    "host SIGKILLed",
    ...MODES.map((mode) => `${killed[mode].left}/${killed[mode].started} left`),
    "",
    "",
  ]);
  const widths = columns.map((title, i) =>
    Math.max(title.length, ...table.map((row) => String(row[i]).length)),
  );
  const line = (cells) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  console.log(line(columns));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of table) console.log(line(row));
}

await main();
