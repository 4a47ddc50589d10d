/**
 * `acp-terminal proxy` as a proxy-chain component: a conductor written from the Proxy Chains RFD
 * (support/conductor.ts) starts the proxy with no agent of its own, then the raw fixture agent as
 * its successor; an SDK client that advertises nothing is the editor.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { client, type ClientConnection, type SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { Conductor } from "./support/conductor.js";
import { processesWithEnv } from "./support/processes.js";
import { CLI, leftAfterEnd, PROXY_AGENT } from "./support/proxy-editor.js";
import { until, withDeadline } from "./support/until.js";

const MARK = "PROXY_CHAIN_MARK";
let conductor: Conductor | undefined;
let mark = "";

afterEach(async () => {
  await conductor?.close().catch(() => undefined);
  conductor = undefined;
  const left = await leftAfterEnd(() => processesWithEnv(MARK, mark));
  expect(left, "processes left by the chain").toEqual([]);
});

async function chain(proxyArgs: string[] = ["--yes"]) {
  mark = randomUUID();
  const env = { ...process.env, [MARK]: mark };
  conductor = new Conductor([
    { command: process.execPath, args: [CLI, "proxy", ...proxyArgs], env },
    { command: process.execPath, args: [PROXY_AGENT], env },
  ]);
  const updates: SessionNotification["update"][] = [];
  const permissions: string[] = [];
  const connection: ClientConnection = client({ name: "chain-editor" })
    .onNotification("session/update", ({ params }) => void updates.push(params.update))
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params.toolCall.title ?? "");
      return { outcome: { outcome: "selected", optionId: params.options[0]!.optionId } };
    })
    .onRequest("*", ({ method }) => ({ editorSays: `answered ${method}` }))
    .connect(conductor.editorStream);
  const initialized = await withDeadline(
    connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }),
    10_000,
    "the chain's initialize answer",
  );
  return { connection, updates, permissions, initialized, conductor };
}

const texts = (updates: SessionNotification["update"][]) =>
  updates.flatMap((u) =>
    u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [],
  );

describe("acp-terminal proxy under a conductor (Proxy Chains RFD)", () => {
  it("answers proxy/initialize with its successor's answer, which saw initialize plus the terminals it serves", async () => {
    const { initialized, conductor } = await chain();
    expect(initialized.agentInfo?.name).toBe("proxy-agent");
    const echo = (initialized._meta as { echo: { clientCapabilities: Record<string, unknown> } })
      .echo;
    expect(echo.clientCapabilities["terminal"]).toBe(true);
    const toProxy = conductor.fromComponent[0]!;
    expect(
      toProxy.some(
        (m) =>
          m.method === "proxy/successor" &&
          (m["params"] as { method: string }).method === "initialize",
      ),
    ).toBe(true);
  });

  it("serves the successor's terminals, asks the editor through the conductor, and shows the output as text", async () => {
    const { connection, updates, permissions } = await chain([]);
    const { sessionId } = await connection.agent.request("session/new", {
      cwd: process.cwd(),
      mcpServers: [],
    });
    const turn = await connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "run printf 'chained\\n'" }],
    });
    expect(turn.stopReason).toBe("end_turn");
    expect(permissions).toEqual(["Run: printf 'chained\\n'"]);
    // The SDK hands notifications over after the prompt's answer resolves: wait for them.
    await until(
      () => texts(updates).join("").includes(`ran: {"exitCode":0,"signal":null} "chained\\n"`),
      { message: "the agent's report of its command" },
    );
    const shown = updates.filter(
      (u) =>
        (u.sessionUpdate === "tool_call_update" || u.sessionUpdate === "tool_call") &&
        "content" in u &&
        Array.isArray(u.content),
    );
    expect(JSON.stringify(shown.at(-1))).toContain("```text\\nchained\\n```\\nexit 0");
  });

  it("passes the successor's unknown methods and _meta to the editor, and the answers back, as the same JSON values", async () => {
    const { connection, updates, conductor } = await chain();
    const { sessionId } = await connection.agent.request("session/new", {
      cwd: process.cwd(),
      mcpServers: [],
    });
    await connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "probe" }],
    });
    await until(
      () => texts(updates).join("").includes(`"result":{"editorSays":"answered _x/ask"}`),
      {
        message: "the agent's report of the editor's answer",
      },
    );
    const fromProxy = conductor.fromComponent[0]!;
    const ping = fromProxy.find((m) => m.method === "_x/ping");
    expect(ping?.["params"]).toEqual({ n: 2.5, s: "é/", _meta: { k: [1, {}] } });
  });

  it("refuses initialize when no conductor wraps it, saying how to run it in front of an agent", async () => {
    mark = randomUUID();
    const child = spawn(process.execPath, [CLI, "proxy"], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, [MARK]: mark },
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`,
    );
    const answer = JSON.parse(
      (await withDeadline(lines.next(), 10_000, "an answer")).value as string,
    );
    expect(answer.error.message).toMatch(
      /proxy-chain component: its conductor sends proxy\/initialize.*give the agent after --/,
    );
    child.stdin.end();
    expect((await once(child, "exit"))[0]).toBe(0);
  });
});
