#!/usr/bin/env node
/**
 * The agent `acp-terminal run` talks to in bench/cli-run.bench.mjs (SDK 2.x, stdio). Its one
 * prompt is a JSON plan; it reports what it measured on stderr, one `BENCH <json>` line each,
 * which the CLI passes through to its own stderr.
 *
 *   {"kind":"flood","command":"head","args":[...],"outputByteLimit":N,"times":K}
 *       K times one after the other: terminal/create embedded in a tool call, wait_for_exit,
 *       release, the tool call completed. `BENCH {"event":"flood-start"}` before the first create,
 *       then `BENCH {"event":"flood","ms":…}` per run (create → exit), and `{"event":"flood-end"}`.
 *   {"kind":"many","count":N,"command":"sleep","args":["1"]}
 *       N terminals created at once, every exit awaited, all released:
 *       `BENCH {"event":"many","ms":…}` (first create → last exit).
 */
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";

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

const app = agent({ name: "cli-bench-agent" })
  .onRequest("initialize", () => ({ protocolVersion: 1, agentCapabilities: {} }))
  .onRequest("session/new", () => ({ sessionId: `bench-${process.pid}` }))
  .onRequest("session/prompt", async ({ client, params }) => {
    const plan = JSON.parse(
      params.prompt.map((block) => (block.type === "text" ? block.text : "")).join(""),
    );
    if (plan.kind === "flood") await flood(client, params.sessionId, plan);
    else if (plan.kind === "many") await many(client, params.sessionId, plan);
    else throw new Error(`unknown plan kind ${plan.kind}`);
    return { stopReason: "end_turn" };
  });

const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
process.exit(0);
