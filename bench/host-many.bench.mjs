#!/usr/bin/env node
/**
 * Many terminals alive at once: 200 and 1000 `sleep 1` in one TerminalHost, all created at once
 * (creates in flight together), then every waitForExit. Each must exit with code 0. Figures: the
 * total time from the first create to the last exit, the time until every create resolved, and the
 * host's RSS growth (peak), beside the same number of plain child_process.spawn('sleep', ['1'])
 * with pipes waited to 'close', in the same run.
 *
 * The host's defaults (maxTerminalsPerSession 64, maxTerminals 1024) are raised for this bench.
 * Each measurement runs in a fresh Node process (`--variant plain|host N`, one JSON line out), so
 * neither inherits the other's heap (fork time grows with the parent's memory).
 * BENCH_COUNTS (default "200,1000").
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_MAX_TERMINALS,
  DEFAULT_MAX_TERMINALS_PER_SESSION,
  TerminalHost,
} from "acp-terminal";
import { gc, rssSampler } from "./support/memory.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { now } from "./support/stats.mjs";

const COUNTS = (process.env.BENCH_COUNTS ?? "200,1000").split(",").map(Number);
const OWNER = { connectionId: "bench", sessionId: "many" };
const GOAL_MS = { 200: 1200 };

async function plainSpawns(count) {
  gc();
  const memory = rssSampler();
  const started = now();
  const children = Array.from({ length: count }, () => {
    const child = spawn("sleep", ["1"], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    return Promise.all([once(child, "spawn"), once(child, "close")]).then(([, [code]]) => code);
  });
  const codes = await Promise.all(children);
  const ms = now() - started;
  const { growth } = memory.stop();
  return { ms, rssGrowth: growth, correct: codes.every((code) => code === 0) };
}

async function hosted(count) {
  const host = new TerminalHost({
    maxTerminalsPerSession: count,
    maxTerminals: Math.max(count, DEFAULT_MAX_TERMINALS),
  });
  gc();
  const memory = rssSampler();
  const started = now();
  const ids = await Promise.all(
    Array.from({ length: count }, () => host.create(OWNER, { command: "sleep", args: ["1"] })),
  );
  const createdMs = now() - started;
  const exits = await Promise.all(ids.map((id) => host.waitForExit(OWNER, id)));
  const ms = now() - started;
  const { growth } = memory.stop();
  const alive = host.list().length;
  await Promise.all(ids.map((id) => host.release(OWNER, id)));
  const left = host.list().length;
  await host.dispose();
  const correct =
    exits.every((exit) => exit.exitCode === 0 && exit.signal === null) &&
    alive === count &&
    left === 0;
  return {
    ms,
    createdMs,
    rssGrowth: growth,
    correct,
    wrong: exits.filter((exit) => exit.exitCode !== 0).length,
  };
}

export async function main() {
  header(
    `host-many: ${COUNTS.join(" and ")} terminals alive at once (sleep 1), one host`,
    `host defaults raised: maxTerminalsPerSession ${DEFAULT_MAX_TERMINALS_PER_SESSION} → N, maxTerminals ${DEFAULT_MAX_TERMINALS} → max(N, ${DEFAULT_MAX_TERMINALS}); baseline: plain spawn of N sleep 1 with pipes`,
  );
  const report = new Report();
  for (const count of COUNTS) {
    const plain = inFreshProcess("plain", count);
    const host = inFreshProcess("host", count);
    report.row({
      figure: `${count} terminals: first create → last exit`,
      value: fmt.s(host.ms),
      baseline: `${fmt.s(plain.ms)} plain spawn→close`,
      ratio: fmt.ratio(host.ms / plain.ms),
      ...(GOAL_MS[count]
        ? { goal: `<= ${fmt.s(GOAL_MS[count])}`, met: host.ms <= GOAL_MS[count] }
        : {}),
    });
    report.row({ figure: `  every create resolved after`, value: fmt.s(host.createdMs) });
    report.row({
      figure: `  host RSS growth (peak)`,
      value: `+${fmt.mb(host.rssGrowth)}`,
      baseline: `+${fmt.mb(plain.rssGrowth)} plain`,
      ratio: `${(host.rssGrowth / count / 1000).toFixed(1)} kB/terminal`,
    });
    report.row({
      figure: `  all exited 0, all released`,
      value: host.correct ? "yes" : `NO (${host.wrong} wrong exits)`,
      baseline: plain.correct ? "plain: yes" : "plain: NO",
      goal: "all",
      met: host.correct,
    });
  }
  report.print();
}

function inFreshProcess(variant, count) {
  const out = execFileSync(
    process.execPath,
    [fileURLToPath(import.meta.url), "--variant", variant, String(count)],
    {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return JSON.parse(out.trim().split("\n").at(-1) ?? "");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === "--variant") {
    const count = Number(process.argv[4]);
    const result = process.argv[3] === "plain" ? await plainSpawns(count) : await hosted(count);
    console.log(JSON.stringify(result));
  } else {
    await main();
  }
}
