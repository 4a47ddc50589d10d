/**
 * demo-agent under the ACP v2 draft with a client that offers `acp-terminal mcp`'s tools as an MCP
 * server on the ACP connection (MCP-over-ACP, the SDK's v2 unstable surface): v2 has no client
 * terminals, so the commands run on the client's machine through those tools, and each run is
 * still published to the client as an agent-owned terminal.
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
  PROTOCOL_VERSION,
  type SessionUpdate,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { createRuntime, TOOL_SETS, toolServerFactory } from "acp-terminal-mcp";
import { afterEach, expect, it } from "vitest";
import { DEMO_AGENT, MARK_VARIABLE, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { killSurvivors } from "./support/processes.js";
import { until, withDeadline } from "./support/until.js";

let cleanup: (() => Promise<void>) | undefined;
let mark = "";

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
  await untilNoneMarked(mark);
});

type TerminalUpdate = Extract<SessionUpdate, { sessionUpdate: "terminal_update" }>;
type Chunk = Extract<SessionUpdate, { sessionUpdate: "terminal_output_chunk" }>;

it("under v2, runs the tour's commands through the client's MCP terminal server and publishes each run as an agent-owned terminal", async () => {
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
  const updates: SessionUpdate[] = [];
  const mcp = new McpOverAcpProvider();
  const app = client({ name: "mcp-terminals-client-v2" })
    .onRequest(methods.client.mcp.message, mcp.handleRequest)
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
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
  let created = 0;
  runtime.host.on("create", () => created++);

  const init = await connection.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    info: { name: "t", version: "1" },
  });
  expect(init.protocolVersion).toBe(2);
  expect(init.capabilities?.session?.mcp?.acp).toEqual({});
  const registration = mcp.registerServer(connection.agent, {
    name: "terminals",
    handler: tools.handler,
  });
  const { sessionId } = await connection.agent.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [registration.declaration],
  });
  await connection.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "demo" }],
  });
  await until(
    () =>
      updates.some(
        (u) =>
          u.sessionUpdate === "state_update" &&
          u.state === "idle" &&
          "stopReason" in u &&
          u.stopReason,
      ),
    { timeoutMs: 30_000, message: "the end of the tour" },
  );
  const meta = updates.flatMap((u) => {
    const facts = (u._meta as Record<string, Record<string, unknown>> | null | undefined)?.[
      "demo-agent"
    ];
    return u.sessionUpdate === "agent_message_chunk" && facts ? [facts] : [];
  });
  expect(meta[0]).toMatchObject({ event: "mode", provider: "mcp", protocolVersion: 2 });
  expect(meta.some((f) => f.event === "tour_complete")).toBe(true);
  // The commands ran in the client's host (through exec), not on the agent's side.
  expect(created).toBeGreaterThanOrEqual(7);
  const announced = updates.filter(
    (u): u is TerminalUpdate => u.sessionUpdate === "terminal_update" && u.command != null,
  );
  expect(announced.length).toBeGreaterThanOrEqual(7);
  const output = Buffer.concat(
    updates
      .filter((u): u is Chunk => u.sessionUpdate === "terminal_output_chunk")
      .map((u) => Buffer.from(u.data, "base64")),
  ).toString("utf8");
  expect(output).toContain("hello from the demo tour");
  for (const { terminalId } of announced) {
    const exits = updates.filter(
      (u) => u.sessionUpdate === "terminal_update" && u.terminalId === terminalId && u.exitStatus,
    );
    expect(exits, `exitStatus updates of ${terminalId}`).toHaveLength(1);
  }
});
