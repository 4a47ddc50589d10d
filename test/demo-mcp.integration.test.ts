/**
 * demo-agent over a client that has no v1 terminals but offers `acp-terminal mcp`'s tools as an
 * MCP server on the ACP connection (MCP-over-ACP: the client registers it with the SDK's
 * `McpOverAcpProvider` and declares `{type: "acp"}` in session/new; the agent calls it through
 * `McpOverAcpCaller`). The demo tour runs through acp-process's `McpToolsProvider`, on the
 * client's TerminalHost, over real stdio; nothing is left running.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { fromMcpServer } from "@agentclientprotocol/sdk/experimental/mcp-server";
import {
  client,
  McpOverAcpProvider,
  methods,
  ndJsonStream,
} from "@agentclientprotocol/sdk/unstable";
import { createRuntime, TOOL_SETS, toolServerFactory, type Runtime } from "acp-terminal-mcp";
import { afterEach, expect, it } from "vitest";
import { facts, messageText, type Update } from "./fixtures/demo-client.js";
import { DEMO_AGENT, MARK_VARIABLE, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { killSurvivors } from "./support/processes.js";
import { withDeadline } from "./support/until.js";

let cleanup: (() => Promise<void>) | undefined;
let mark = "";

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
  await untilNoneMarked(mark);
});

const step = (updates: Update[], name: string) => facts(updates).filter((f) => f.step === name);

async function startWithMcpTerminals(): Promise<{
  updates: Update[];
  runtime: Runtime;
  prompt(text: string): Promise<string>;
}> {
  mark = newMark();
  const runtime = await createRuntime({
    workspace: process.cwd(),
    policy: { yes: true, allow: [], sandbox: "off", sandboxNetwork: false },
    env: (base) => ({ ...(base as Record<string, string>), [MARK_VARIABLE]: mark }),
  });
  const tools = fromMcpServer(
    toolServerFactory({
      tools: TOOL_SETS.exec,
      manager: runtime.manager,
      sessionId: "mcp",
      progressIntervalMs: 1000,
      version: "test",
      instructions: "",
    }),
  );
  const child = spawn(process.execPath, [DEMO_AGENT], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, [MARK_VARIABLE]: mark },
  });
  const exited = once(child, "exit");
  const updates: Update[] = [];
  const mcp = new McpOverAcpProvider();
  const app = client({ name: "mcp-terminals-client" })
    .onRequest(methods.client.mcp.message, mcp.handleRequest)
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update as unknown as Update);
    });
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
  );
  cleanup = async () => {
    connection.close();
    child.stdin.end();
    await withDeadline(exited, 10_000, "demo-agent to exit after its stdin closed").catch(() =>
      killSurvivors([child.pid!]),
    );
    await tools.close();
    await runtime.dispose();
  };
  const init = (await withDeadline(
    connection.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
      clientInfo: { name: "t", version: "1" },
    }),
    10_000,
    "initialize",
  )) as {
    agentCapabilities?: { mcpCapabilities?: { acp?: boolean } };
  };
  expect(init.agentCapabilities?.mcpCapabilities?.acp).toBe(true);
  const registration = mcp.registerServer(connection.agent, {
    name: "terminals",
    handler: tools.handler,
  });
  const { sessionId } = (await withDeadline(
    connection.agent.request("session/new", {
      cwd: process.cwd(),
      mcpServers: [registration.declaration],
    }),
    10_000,
    "session/new",
  )) as { sessionId: string };
  return {
    updates,
    runtime,
    async prompt(text) {
      const answer = connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      }) as Promise<{ stopReason: string }>;
      return (await withDeadline(answer, 30_000, `demo-agent to answer "${text}"`)).stopReason;
    },
  };
}

it("runs the demo tour through the client's MCP terminal server when the client has no v1 terminals", async () => {
  const demo = await startWithMcpTerminals();
  let created = 0;
  let released = 0;
  demo.runtime.host.on("create", () => created++).on("release", () => released++);
  expect(await demo.prompt("demo")).toBe("end_turn");
  const all = facts(demo.updates);
  expect(all[0]).toEqual({ event: "mode", provider: "mcp" });
  expect(messageText(demo.updates)).toContain(
    "This client offers its terminals as an MCP server over ACP (terminals",
  );
  expect(step(demo.updates, "foreground")).toEqual([
    expect.objectContaining({ status: "completed", exitCode: 0 }),
  ]);
  expect(step(demo.updates, "timeout")).toEqual([
    expect.objectContaining({ status: "timed_out", output: expect.stringContaining("compiling") }),
  ]);
  expect(step(demo.updates, "idle")).toEqual([
    expect.objectContaining({ status: "timed_out", cause: "inactivity" }),
  ]);
  expect(step(demo.updates, "build")).toEqual([
    expect.objectContaining({ status: "completed", exitCode: 0, done: true }),
  ]);
  // stdin through `process write`, a chosen signal through `process kill`, a tree kill, a byte-bounded tail.
  expect(step(demo.updates, "interactive")).toEqual([
    expect.objectContaining({
      skipped: false,
      status: "completed",
      exitCode: 0,
      output: "name? hello acp\n",
    }),
  ]);
  expect(step(demo.updates, "interrupt")).toEqual([
    expect.objectContaining({
      skipped: false,
      status: "killed",
      exitCode: 130,
      output: expect.stringContaining("interrupted: cleaning up"),
    }),
  ]);
  expect(step(demo.updates, "kill")).toEqual([
    expect.objectContaining({ status: "killed", alive: [] }),
  ]);
  const [flood] = step(demo.updates, "flood");
  expect(flood).toMatchObject({ truncated: true, wholeCharacters: true, totalBytes: 204_804 });
  expect(flood!.bytes).toBeLessThanOrEqual(4096);
  expect(step(demo.updates, "release")).toEqual([
    expect.objectContaining({ unreleased: [], released: true }),
  ]);
  expect(all.at(-1)).toMatchObject({ event: "tour_complete", steps: 8 });
  for (const f of all.filter((fact) => typeof fact.step === "string")) {
    expect(f.status, JSON.stringify(f)).not.toBe("failed");
  }
  // The commands ran in the client's host, through the tools, and every terminal was released.
  expect(created).toBeGreaterThan(0);
  expect(released).toBe(created);
});
