#!/usr/bin/env node
/**
 * The agent `acp-terminal run` talks to in bench/cli-run.bench.mjs (SDK 2.x, stdio). Its one
 * prompt is a JSON plan; it reports what it measured on stderr, one `BENCH <json>` line each,
 * which the CLI passes through to its own stderr.
 *
 *   {"kind":"flood","command":"head","args":[...],"outputByteLimit":N,"times":K,"readOutput":B}
 *       K times one after the other: terminal/create embedded in a tool call, wait_for_exit,
 *       (with readOutput, one terminal/output: the newest N bytes), release, the tool call completed. `BENCH {"event":"flood-start"}` before the first create,
 *       then `BENCH {"event":"flood","ms":…}` per run (create → exit), and `{"event":"flood-end"}`.
 *   {"kind":"many","count":N,"command":"sleep","args":["1"]}
 *       N terminals created at once, every exit awaited, all released:
 *       `BENCH {"event":"many","ms":…}` (first create → last exit).
 *   {"kind":"cycle","iterations":N,"warmup":W}
 *       In alternating batches of 10, this agent times: create (`true`) → wait_for_exit → release
 *       through the CLI; the same cycle against a canned-answer client it starts itself (the
 *       transport floor, support/canned-client.mjs); a bare `spawn('true')` → 'exit' here.
 *       `BENCH {"event":"cycle","cli":[ms…],"floor":[…],"spawn":[…]}`.
 *   {"kind":"exit","iterations":N,"warmup":W}
 *       `bash -c 'echo $EPOCHREALTIME'` through the CLI (create → wait_for_exit answered) beside a
 *       plain spawn of it here (spawn → 'exit'), alternating batches; for each also the time from
 *       the command's own end (the time it printed) to its exit being known.
 *       `BENCH {"event":"exit","cli":[ms…],"cliAfterEnd":[…],"spawn":[…],"spawnAfterEnd":[…]}`.
 *   {"kind":"files","iterations":N,"warmup":W,"file":PATH}
 *       In alternating batches of 10: fs/read_text_file of PATH (a small text file a few
 *       directories below the session's cwd) and fs/write_text_file of PATH.out through the CLI
 *       (run with --yes), beside the same read and the same write-and-rename done here.
 *       `BENCH {"event":"files","read":[ms…],"write":[…],"plainRead":[…],"plainWrite":[…]}`.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, rename, writeFile } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";
import { alternate } from "./sampling.mjs";
import { now, wallMs } from "./stats.mjs";
import { CANNED_CLIENT, startClient } from "./wire.mjs";

const report = (fields) => process.stderr.write(`BENCH ${JSON.stringify(fields)}\n`);

async function flood(client, sessionId, plan) {
  const update = (u) => client.notify("session/update", { sessionId, update: u });
  report({ event: "flood-start" });
  for (let i = 0; i < plan.times; i++) {
    const toolCallId = `flood-${i}`;
    const started = performance.now();
    const { terminalId } = await client.request("terminal/create", {
      sessionId,
      command: plan.command,
      args: plan.args,
      outputByteLimit: plan.outputByteLimit,
    });
    await update({
      sessionUpdate: "tool_call",
      toolCallId,
      title: `${plan.command} ${plan.args.join(" ")}`,
      kind: "execute",
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    });
    const status = await client.request("terminal/wait_for_exit", { sessionId, terminalId });
    const ms = performance.now() - started;
    if (plan.readOutput === true) {
      await client.request("terminal/output", { sessionId, terminalId });
    }
    await client.request("terminal/release", { sessionId, terminalId });
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: status.exitCode === 0 ? "completed" : "failed",
    });
    report({ event: "flood", ms, exitCode: status.exitCode });
  }
  report({ event: "flood-end" });
}

async function many(client, sessionId, plan) {
  const started = performance.now();
  const ids = await Promise.all(
    Array.from({ length: plan.count }, async () => {
      const { terminalId } = await client.request("terminal/create", {
        sessionId,
        command: plan.command,
        args: plan.args,
      });
      const status = await client.request("terminal/wait_for_exit", { sessionId, terminalId });
      if (status.exitCode !== 0)
        throw new Error(`${plan.command} exited with ${JSON.stringify(status)}`);
      return terminalId;
    }),
  );
  const ms = performance.now() - started;
  await Promise.all(
    ids.map((terminalId) => client.request("terminal/release", { sessionId, terminalId })),
  );
  report({ event: "many", ms, count: ids.length });
}

async function trueCycle(client, sessionId) {
  const { terminalId } = await client.request("terminal/create", { sessionId, command: "true" });
  const status = await client.request("terminal/wait_for_exit", { sessionId, terminalId });
  await client.request("terminal/release", { sessionId, terminalId });
  if (status.exitCode !== 0) throw new Error(`true exited with ${JSON.stringify(status)}`);
}

async function bareSpawn() {
  const [code] = await once(spawn("true"), "exit");
  if (code !== 0) throw new Error(`spawn('true') exited with ${code}`);
}

async function cycle(client, sessionId, plan) {
  const canned = await startClient(CANNED_CLIENT);
  try {
    const samples = await alternate(
      {
        cli: () => trueCycle(client, sessionId),
        floor: () => trueCycle(canned.client, "canned"),
        spawn: bareSpawn,
      },
      { warmup: plan.warmup, iterations: plan.iterations, batch: 10 },
    );
    report({ event: "cycle", ...samples });
  } finally {
    await canned.stop();
  }
}

async function files(client, sessionId, plan) {
  const out = `${plan.file}.out`;
  const samples = await alternate(
    {
      read: () => client.request("fs/read_text_file", { sessionId, path: plan.file }),
      write: () =>
        client.request("fs/write_text_file", { sessionId, path: out, content: "written\n" }),
      plainRead: () => readFile(plan.file, "utf8"),
      plainWrite: async () => {
        await writeFile(`${out}.tmp`, "written\n");
        await rename(`${out}.tmp`, out);
      },
    },
    { warmup: plan.warmup, iterations: plan.iterations, batch: 10 },
  );
  report({ event: "files", ...samples });
}

const EXIT_COMMAND = ["bash", "-c", "echo $EPOCHREALTIME"];
/** The command's own end (ms, wall clock) from what it printed. */
const endedAt = (output) => Number.parseFloat(output.trim().replace(",", ".")) * 1000;

async function exitSeen(client, sessionId, plan) {
  const cliAfterEnd = [];
  const spawnAfterEnd = [];
  const [command, ...args] = EXIT_COMMAND;
  const samples = await alternate(
    {
      async cli() {
        const started = now();
        const { terminalId } = await client.request("terminal/create", {
          sessionId,
          command,
          args,
        });
        await client.request("terminal/wait_for_exit", { sessionId, terminalId });
        const ms = now() - started;
        const known = wallMs();
        const { output } = await client.request("terminal/output", { sessionId, terminalId });
        await client.request("terminal/release", { sessionId, terminalId });
        cliAfterEnd.push(known - endedAt(output));
        return ms;
      },
      async spawn() {
        const started = now();
        const child = spawn(command, args, { stdio: ["ignore", "pipe", "ignore"] });
        let output = "";
        child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
        const closed = once(child, "close");
        await once(child, "exit");
        const ms = now() - started;
        const known = wallMs();
        await closed;
        spawnAfterEnd.push(known - endedAt(output));
        return ms;
      },
    },
    { warmup: plan.warmup, iterations: plan.iterations, batch: 10 },
  );
  const measured = (values) => values.slice(-plan.iterations);
  report({
    event: "exit",
    ...samples,
    cliAfterEnd: measured(cliAfterEnd),
    spawnAfterEnd: measured(spawnAfterEnd),
  });
}

const app = agent({ name: "cli-bench-agent" })
  .onRequest("initialize", () => ({ protocolVersion: 1, agentCapabilities: {} }))
  .onRequest("session/new", () => ({ sessionId: `bench-${process.pid}` }))
  .onRequest("session/prompt", async ({ client, params }) => {
    const plan = JSON.parse(
      params.prompt.map((block) => (block.type === "text" ? block.text : "")).join(""),
    );
    if (plan.kind === "flood") await flood(client, params.sessionId, plan);
    else if (plan.kind === "many") await many(client, params.sessionId, plan);
    else if (plan.kind === "cycle") await cycle(client, params.sessionId, plan);
    else if (plan.kind === "exit") await exitSeen(client, params.sessionId, plan);
    else if (plan.kind === "files") await files(client, params.sessionId, plan);
    else throw new Error(`unknown plan kind ${plan.kind}`);
    return { stopReason: "end_turn" };
  });

const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
process.exit(0);
