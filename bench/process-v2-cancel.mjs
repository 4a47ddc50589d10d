#!/usr/bin/env node
/**
 * ACP v2 `terminal/cancel` round trip against demo-agent over stdio (an SDK v2 client): per
 * cancel, a `bg sleep 300` run is published as an agent-owned terminal, then
 *   - answered: `terminal/cancel` sent → its answer (the agent accepted the cancel);
 *   - exitStatus: `terminal/cancel` sent → the `terminal_update` with `exitStatus` received;
 * beside, in the same run:
 *   - a bare request round trip on the same connection (`session/list`: the wire's floor);
 *   - ProcessManager.kill() of the same command in this process (local provider, no wire: the
 *     kill sequence itself).
 * BENCH_CANCELS (default 20) per variant; p50/p95.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk/experimental/v2";
import { LocalTerminalProvider, ProcessManager } from "acp-process";
import { TerminalHost } from "acp-terminal";
import { fmt, header, Report } from "./support/report.mjs";
import { now, summarize } from "./support/stats.mjs";

const CANCELS = Number(process.env.BENCH_CANCELS ?? 20);
const DEMO_AGENT = fileURLToPath(new URL("../packages/demo-agent/dist/main.js", import.meta.url));
const WAIT_MS = 10_000;

/** Resolves with the first update `test` accepts, from now on; rejects after WAIT_MS. */
function nextUpdate(waiters, test, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${WAIT_MS} ms`)), WAIT_MS);
    waiters.add({
      test,
      resolve: (update) => {
        clearTimeout(timer);
        resolve(update);
      },
    });
  });
}

async function overTheWire() {
  const child = spawn(process.execPath, [DEMO_AGENT], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = once(child, "exit");
  const waiters = new Set();
  const app = client({ name: "bench-v2-cancel" }).onNotification("session/update", ({ params }) => {
    for (const waiter of waiters) {
      if (waiter.test(params.update)) {
        waiters.delete(waiter);
        waiter.resolve({ update: params.update, at: now() });
      }
    }
  });
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
  );
  const agent = connection.agent;
  try {
    const init = await agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      info: { name: "bench-v2-cancel", version: "0" },
    });
    if (init.protocolVersion !== 2) throw new Error(`negotiated v${init.protocolVersion}, not v2`);
    const { sessionId } = await agent.request("session/new", { cwd: process.cwd() });
    const bare = [];
    const answered = [];
    const exited = [];
    for (let i = 0; i < CANCELS; i++) {
      const begin = now();
      await agent.request("session/list", {});
      bare.push(now() - begin);

      const announced = nextUpdate(
        waiters,
        (u) => u.sessionUpdate === "terminal_update" && (u.command ?? "").includes("sleep 300"),
        "announcement",
      );
      // The turn's end: the run's start-up work (the first /proc usage sample, ...) is behind it.
      const idle = nextUpdate(
        waiters,
        (u) => u.sessionUpdate === "state_update" && u.state === "idle" && u.stopReason,
        "the end of the turn",
      );
      await agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: `bg sleep 300 # ${i}` }],
      });
      const { terminalId } = (await announced).update;
      await idle;
      const exit = nextUpdate(
        waiters,
        (u) => u.sessionUpdate === "terminal_update" && u.terminalId === terminalId && u.exitStatus,
        "exitStatus",
      );
      const sent = now();
      await agent.request("terminal/cancel", { sessionId, terminalId });
      answered.push(now() - sent);
      exited.push((await exit).at - sent);
    }
    return { bare, answered, exited };
  } finally {
    connection.close();
    child.stdin.end();
    await exited;
  }
}

async function inProcess() {
  const host = new TerminalHost();
  const manager = new ProcessManager({
    provider: new LocalTerminalProvider(host),
    env: {},
    sweepIntervalMs: 0,
  });
  const kills = [];
  try {
    for (let i = 0; i < CANCELS; i++) {
      const run = await manager.start({ sessionId: "bench", command: `sleep 300 # ${i}` });
      const begin = now();
      await manager.kill(run.id);
      kills.push(now() - begin);
    }
  } finally {
    await manager.dispose();
    await host.dispose();
  }
  return kills;
}

header(
  "ACP v2 terminal/cancel round trip (demo-agent over stdio)",
  `${CANCELS} cancels per variant`,
);
const report = new Report();
const wire = await overTheWire();
const local = summarize(await inProcess());
const bare = summarize(wire.bare);
for (const [name, samples] of [
  ["terminal/cancel answered", wire.answered],
  ["terminal/cancel → exitStatus", wire.exited],
]) {
  const figures = summarize(samples);
  report.row({
    figure: `${name} p50`,
    value: fmt.ms(figures.p50),
    baseline: `${fmt.ms(bare.p50)} session/list round trip`,
    ratio: fmt.ratio(figures.p50 / bare.p50),
  });
  report.row({
    figure: `${name} p95`,
    value: fmt.ms(figures.p95),
    baseline: `${fmt.ms(bare.p95)} session/list round trip`,
    ratio: fmt.ratio(figures.p95 / bare.p95),
  });
}
report.row({
  figure: "in-process ProcessManager.kill() p50",
  value: fmt.ms(local.p50),
  baseline: `${fmt.ms(summarize(wire.exited).p50)} cancel → exitStatus over the wire`,
});
report.note(
  "answered = the agent accepted the cancel (the kill has started); exitStatus = the process group is gone and its output drained",
);
report.print();
