#!/usr/bin/env node
/**
 * What the sandbox costs per command: the cycle TerminalHost.create(`true`) → waitForExit →
 * release in this process, with `sandbox: "off"`, `"read-only"` and `"workspace-write"` (each a
 * bubblewrap around the command: a user, mount, IPC and network namespace, the filesystem bound
 * read-only), pipes and PTY; and a bare `bwrap … true` beside a bare `spawn('true')`, to tell
 * bubblewrap's own start from the host's. Also what an allow rule costs now that what it approves
 * runs confined (acp-terminal/approval): `true` approved by `--allow true` (read-only sandbox, no
 * network) beside `--yes` (allowAll, unconfined), and `git status` in a small repository approved
 * by `--allow 'git status'` (confined, with git's checks: its config and submodules read by git)
 * beside `--yes`. Baseline: a plain detached spawn('true') with pipes, waited to 'close'. Alternating batches, BENCH_ITERATIONS (default 100) after BENCH_WARMUP
 * (default 10); p50/p95.
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync, spawn as spawnChild } from "node:child_process";
import { TerminalHost } from "acp-terminal";
import { createApprovalPolicy } from "acp-terminal/approval";
import { bubblewrapArgv } from "../packages/acp-terminal/dist/sandbox/bubblewrap.js";
import { bubblewrapSupport } from "../packages/acp-terminal/dist/sandbox/bubblewrap-support.js";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { summarize } from "./support/stats.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const OWNER = { connectionId: "bench", sessionId: "sandbox" };

async function run(file, args) {
  const child = spawnChild(file, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  child.stdout.resume();
  child.stderr.resume();
  await once(child, "close");
}

async function cycle(host, pty, command = "true", args = []) {
  const terminalId = await host.create(OWNER, { command, args, pty });
  const status = await host.waitForExit(OWNER, terminalId);
  if (status.exitCode !== 0) {
    throw new Error(
      `true exited ${JSON.stringify(status)}: ${host.output(OWNER, terminalId).output}`,
    );
  }
  await host.release(OWNER, terminalId);
}

export async function main() {
  header(
    "host-sandbox: what running each command in a bubblewrap sandbox costs",
    `create('true') → waitForExit → release; ${ITERATIONS} iterations after ${WARMUP} warm-up, alternating batches; p50/p95`,
  );
  const support = bubblewrapSupport();
  if (!support.available) {
    throw new Error(`no sandbox to measure: ${support.reason}`);
  }
  const workspace = mkdtempSync(path.join(tmpdir(), "bench-sandbox-"));
  const hosts = {
    off: new TerminalHost({ cwd: workspace, sandbox: "off" }),
    "read-only": new TerminalHost({ cwd: workspace, sandbox: "read-only" }),
    "workspace-write": new TerminalHost({ cwd: workspace, sandbox: "workspace-write" }),
    yes: new TerminalHost({ cwd: workspace, authorize: createApprovalPolicy({ allowAll: true }) }),
    rule: new TerminalHost({
      cwd: workspace,
      authorize: createApprovalPolicy({ allow: ["true", "git status"] }),
    }),
  };
  const git = (...args) => execFileSync("git", args, { cwd: workspace });
  git("init", "-q");
  git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x");
  const bwrap = bubblewrapArgv(support.bwrap, support.features, {
    mode: "read-only",
    workspace,
    network: false,
    cwd: workspace,
    gitDirs: [],
    gitGuards: [],
  });
  try {
    const samples = await alternate(
      {
        plain: () => run("true", []),
        bwrap: () => run(bwrap[0], [...bwrap.slice(1), "true"]),
        off: () => cycle(hosts.off, false),
        readOnly: () => cycle(hosts["read-only"], false),
        workspaceWrite: () => cycle(hosts["workspace-write"], false),
        offPty: () => cycle(hosts.off, true),
        readOnlyPty: () => cycle(hosts["read-only"], true),
        yes: () => cycle(hosts.yes, false),
        rule: () => cycle(hosts.rule, false),
        yesGit: () => cycle(hosts.yes, false, "git", ["status"]),
        ruleGit: () => cycle(hosts.rule, false, "git", ["status"]),
      },
      { warmup: WARMUP, iterations: ITERATIONS, batch: 10 },
    );
    const s = Object.fromEntries(
      Object.entries(samples).map(([name, values]) => [name, summarize(values)]),
    );
    const report = new Report();
    for (const p of ["p50", "p95"]) {
      report.row({
        figure: `bare bwrap … true ${p}`,
        value: fmt.ms(s.bwrap[p]),
        baseline: `${fmt.ms(s.plain[p])} plain spawn→close`,
        ratio: `+${fmt.ms(s.bwrap[p] - s.plain[p])}`,
      });
      report.row({
        figure: `host, sandbox off ${p}`,
        value: fmt.ms(s.off[p]),
        baseline: `${fmt.ms(s.plain[p])} plain spawn→close`,
        ratio: `+${fmt.ms(s.off[p] - s.plain[p])}`,
      });
      for (const [name, label] of [
        ["readOnly", "read-only"],
        ["workspaceWrite", "workspace-write"],
      ]) {
        report.row({
          figure: `host, sandbox ${label} ${p}`,
          value: fmt.ms(s[name][p]),
          baseline: `${fmt.ms(s.off[p])} sandbox off`,
          ratio: `+${fmt.ms(s[name][p] - s.off[p])}`,
          goal: "<= +10 ms",
          met: s[name][p] - s.off[p] <= 10,
        });
      }
      report.row({
        figure: `--allow true (confined) ${p}`,
        value: fmt.ms(s.rule[p]),
        baseline: `${fmt.ms(s.yes[p])} --yes (unconfined)`,
        ratio: `+${fmt.ms(s.rule[p] - s.yes[p])}`,
      });
      report.row({
        figure: `--allow 'git status' (checks, confined) ${p}`,
        value: fmt.ms(s.ruleGit[p]),
        baseline: `${fmt.ms(s.yesGit[p])} --yes git status`,
        ratio: `+${fmt.ms(s.ruleGit[p] - s.yesGit[p])}`,
      });
      report.row({
        figure: `host PTY, sandbox read-only ${p}`,
        value: fmt.ms(s.readOnlyPty[p]),
        baseline: `${fmt.ms(s.offPty[p])} PTY, sandbox off`,
        ratio: `+${fmt.ms(s.readOnlyPty[p] - s.offPty[p])}`,
      });
    }
    report.note(
      `bubblewrap: ${support.bwrap}; ${process.getuid?.() === 0 ? "as root" : "unprivileged"}`,
    );
    report.print();
  } finally {
    await Promise.all(Object.values(hosts).map((host) => host.dispose()));
    rmSync(workspace, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
