#!/usr/bin/env node
/**
 * `acp-terminal-mcp` over real stdio, per protocol revision (2025-11-25 and 2026-07-28), each
 * figure beside a baseline from the same run:
 *   - a long build (`echo step N; sleep 1` × BENCH_LONG_S, default 70) through a client whose
 *     request timeout is BENCH_REQUEST_TIMEOUT_S (default 60): as an MCP task (ext-tasks 0.2.2)
 *     vs the same call without Tasks (it hits the timeout);
 *   - cancel latency: tasks/cancel until the command is gone (BENCH_CANCELS, default 10) vs
 *     ProcessManager.kill of the same command over an in-process TerminalHost;
 *   - the elicitation round trip: a call asked about and accepted at once by the client vs the same
 *     call on a --yes server (BENCH_ITERATIONS, default 20);
 *   - the largest answer any call produces: exec of 5,000,000 control characters at the largest
 *     --max-output-chars, and process list of 200 runs of 128 KiB commands (JSON bytes as
 *     received) vs the answer the old server gave for the same output (both copies, whole).
 *
 * The 15-minute figure of the issue: BENCH_LONG_S=900 BENCH_TIMEOUT_S=1200 node bench/process-mcp-tasks.mjs
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { LocalTerminalProvider, ProcessManager } from "acp-process";
import { TerminalHost } from "acp-terminal";
import { fmt, header, Report } from "./support/report.mjs";
import { now, summarize } from "./support/stats.mjs";
import { tasksClient } from "./support/tasks-client.mjs";

const LONG_S = Number(process.env.BENCH_LONG_S ?? 70);
const REQUEST_TIMEOUT_MS = Number(process.env.BENCH_REQUEST_TIMEOUT_S ?? 60) * 1000;
const CANCELS = Number(process.env.BENCH_CANCELS ?? 10);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
const MAIN = fileURLToPath(new URL("../packages/acp-terminal-mcp/dist/main.js", import.meta.url));
const REVISIONS = /** @type {const} */ (["2025", "2026"]);
const LABEL = { 2025: "2025-11-25", 2026: "2026-07-28" };

const server = (workspace, ...args) => ({
  command: process.execPath,
  args: [MAIN, "--workspace", workspace, ...args],
});

/**
 * A plain SDK v2 client (no Tasks), measuring each message's JSON bytes as it arrives.
 * @param {"2025" | "2026"} revision
 * @param {{command: string, args: string[]}} spec
 * @param {((request: any) => Promise<any>) | undefined} elicit
 */
async function plainClient(revision, spec, elicit) {
  const client = new Client(
    { name: "bench-plain", version: "1.0.0" },
    {
      ...(revision === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
      ...(elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (elicit) {
    const answer = elicit;
    client.setRequestHandler("elicitation/create", (request) => answer(request));
  }
  const transport = new StdioClientTransport({ ...spec, stderr: "ignore" });
  const sizes = { last: 0, largest: 0 };
  await client.connect(transport);
  const inner = transport.onmessage;
  transport.onmessage = (message) => {
    sizes.last = Buffer.byteLength(JSON.stringify(message));
    sizes.largest = Math.max(sizes.largest, sizes.last);
    inner?.(message);
  };
  return { client, sizes };
}

function pidsWith(needle) {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(needle);
      } catch {
        return false;
      }
    });
}

async function until(check, timeoutMs = 30_000) {
  const deadline = now() + timeoutMs;
  for (;;) {
    if (check()) return;
    if (now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const sleeper = (needle) =>
  `exec '${process.execPath}' -e 'setTimeout(() => {}, 600000)' ${needle}`;

header(
  "acp-terminal-mcp: Tasks, cancel, elicitation, largest answers, per protocol revision",
  `a ${LONG_S} s build through a ${REQUEST_TIMEOUT_MS / 1000} s request timeout; ${CANCELS} cancels; ${ITERATIONS} elicitations`,
);
const report = new Report();
const workspace = mkdtempSync(path.join(tmpdir(), "bench-mcp-tasks-"));
const open = [];
try {
  // 1. The long build: all four at once (two revisions, with and without Tasks).
  const build = `for i in $(seq ${LONG_S}); do echo "step $i"; sleep 1; done; echo built`;
  const long = await Promise.all(
    REVISIONS.flatMap((revision) => [
      (async () => {
        const tasks = await tasksClient(revision, server(workspace, "--yes"), undefined);
        open.push(tasks);
        const started = now();
        const execution = await tasks.session.callTool(
          "exec",
          // exec's default yield (10 s), or less under a shorter request timeout.
          { command: build, yieldMs: Math.min(10_000, REQUEST_TIMEOUT_MS / 2) },
          { requestTimeoutMs: REQUEST_TIMEOUT_MS, task: { preference: "prefer" } },
        );
        const { outcome } = await execution.settle();
        /** @type {any} */
        const settled = outcome;
        const output = String(settled.result?.structuredContent?.output ?? "");
        return {
          revision,
          tasks: true,
          ms: now() - started,
          how: `${execution.kind}, ${outcome.status}, ends "${output.trim().split("\n").at(-1)}"`,
        };
      })(),
      (async () => {
        const { client } = await plainClient(revision, server(workspace, "--yes"), undefined);
        open.push(client);
        const started = now();
        try {
          await client.callTool(
            { name: "exec", arguments: { command: build, yieldMs: 120_000 } },
            { timeout: REQUEST_TIMEOUT_MS },
          );
          return { revision, tasks: false, ms: now() - started, how: "answered" };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return { revision, tasks: false, ms: now() - started, how: `failed: ${message}` };
        }
      })(),
    ]),
  );
  for (const revision of REVISIONS) {
    const ours = long.find((r) => r.revision === revision && r.tasks);
    const base = long.find((r) => r.revision === revision && !r.tasks);
    if (!ours || !base) throw new Error("a long run is missing");
    report.row({
      figure: `${LONG_S} s build, ${REQUEST_TIMEOUT_MS / 1000} s request timeout, MCP ${LABEL[revision]}`,
      value: `${fmt.s(ours.ms)} (${ours.how})`,
      baseline: `${fmt.s(base.ms)} without Tasks (${base.how.slice(0, 60)})`,
    });
  }

  // 2. Cancel latency.
  const host = new TerminalHost({ cwd: workspace });
  const manager = new ProcessManager({
    provider: new LocalTerminalProvider(host),
    env: {},
    sweepIntervalMs: 0,
  });
  const direct = [];
  for (let i = 0; i < CANCELS; i++) {
    const needle = `bench-kill-${randomUUID()}`;
    const run = await manager.start({ sessionId: "bench", command: sleeper(needle) });
    await until(() => pidsWith(needle).length > 0);
    const started = now();
    await manager.kill(run.id, { sessionId: "bench" });
    await until(() => pidsWith(needle).length === 0);
    direct.push(now() - started);
  }
  await manager.dispose();
  await host.dispose();
  const base = summarize(direct);
  for (const revision of REVISIONS) {
    const tasks = await tasksClient(revision, server(workspace, "--yes"), undefined);
    open.push(tasks);
    const samples = [];
    for (let i = 0; i < CANCELS; i++) {
      const needle = `bench-cancel-${randomUUID()}`;
      const execution = await tasks.session.callTool(
        "exec",
        { command: sleeper(needle), yieldMs: 10 },
        { requestTimeoutMs: 30_000, task: { preference: "prefer" } },
      );
      if (execution.kind !== "task") throw new Error("expected a task");
      await until(() => pidsWith(needle).length > 0);
      const started = now();
      await execution.cancel();
      await until(() => pidsWith(needle).length === 0);
      samples.push(now() - started);
      await execution.settle();
    }
    const ours = summarize(samples);
    for (const p of ["p50", "p95"]) {
      report.row({
        figure: `tasks/cancel until the command is gone, MCP ${LABEL[revision]}: ${p}`,
        value: fmt.ms(ours[p]),
        baseline: `${fmt.ms(base[p])} ProcessManager.kill`,
        ratio: fmt.ratio(ours[p] / base[p]),
      });
    }
  }

  // 3. The elicitation round trip.
  const accept = async () => ({ action: "accept", content: { decision: "once" } });
  for (const revision of REVISIONS) {
    const asked = await plainClient(revision, server(workspace), accept);
    const yes = await plainClient(revision, server(workspace, "--yes"), undefined);
    open.push(asked.client, yes.client);
    const time = async (client) => {
      const started = now();
      const result = await client.callTool({ name: "exec", arguments: { command: "true" } });
      if (result.isError) throw new Error(JSON.stringify(result));
      return now() - started;
    };
    const withQuestion = [];
    const without = [];
    for (let i = 0; i < ITERATIONS; i++) {
      withQuestion.push(await time(asked.client));
      without.push(await time(yes.client));
    }
    const ours = summarize(withQuestion);
    const plain = summarize(without);
    for (const p of ["p50", "p95"]) {
      report.row({
        figure: `exec true asked and accepted through elicitation, MCP ${LABEL[revision]}: ${p}`,
        value: fmt.ms(ours[p]),
        baseline: `${fmt.ms(plain[p])} on a --yes server`,
        ratio: fmt.ratio(ours[p] / plain[p]),
      });
    }
  }

  // 4. The largest answers.
  const flood = "head -c 5000000 /dev/zero | tr '\\0' '\\1'";
  for (const revision of REVISIONS) {
    const { client, sizes } = await plainClient(
      revision,
      server(
        workspace,
        "--yes",
        "--max-output-chars",
        "5000000",
        "--output-limit",
        String(64 * 1024 * 1024),
        "--max-runs",
        "256",
      ),
      undefined,
    );
    open.push(client);
    const exec = await client.callTool(
      { name: "exec", arguments: { command: flood, yieldMs: 120_000 } },
      { timeout: 120_000 },
    );
    const execBytes = sizes.last;
    const whole = 2 * Buffer.byteLength(JSON.stringify("\u0001".repeat(5_000_000))) + 200;
    await client.callTool({
      name: "process",
      arguments: {
        action: "log",
        sessionId: /** @type {any} */ (exec.structuredContent).sessionId,
        limit: 1000,
      },
    });
    const logBytes = sizes.last;
    const command = `sleep 60 #${"z".repeat(128 * 1024 - 20)}`;
    for (let i = 0; i < 200; i++) {
      await client.callTool({ name: "exec", arguments: { command, background: true } });
    }
    await client.callTool({ name: "process", arguments: { action: "list", limit: 500 } });
    const listBytes = sizes.last;
    report.row({
      figure: `largest answer, MCP ${LABEL[revision]}: exec of 5,000,000 control characters`,
      value: `${execBytes} bytes`,
      baseline: `${whole} bytes for the whole output twice (before the bound)`,
      ratio: fmt.ratio(execBytes / whole),
    });
    report.row({
      figure: `  process log of it (limit 1000) / process list of 200 runs of 128 KiB commands`,
      value: `${logBytes} / ${listBytes} bytes`,
      baseline: `${200 * 128 * 1024} bytes of commands listed whole`,
    });
    report.note(
      `MCP ${LABEL[revision]}: the largest message this client received was ${sizes.largest} bytes (bound: 4194304)`,
    );
    await client.callTool({ name: "process", arguments: { action: "clear" } });
  }
} finally {
  await Promise.allSettled(open.map((c) => c.close()));
  rmSync(workspace, { recursive: true, force: true });
}
report.print();
