/**
 * `acp-terminal proxy` between a v1 editor that advertises nothing (support/proxy-editor.ts) and
 * an agent that speaks only ACP v2 (fixtures/v2-agent.mjs, on the SDK's experimental v2: it
 * refuses a v1 initialize with -32022): the proxy speaks v2 to the agent and v1 to the editor,
 * with the agent's own terminals shown as text in their tool calls.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { processesWithEnv } from "./support/processes.js";
import { CLI, leftAfterEnd, startProxyEditor, type ProxyEditor } from "./support/proxy-editor.js";
import { until } from "./support/until.js";

const V2_AGENT = fileURLToPath(new URL("./fixtures/v2-agent.mjs", import.meta.url));
const MARK = "PROXY_V2_MARK";
let mark = randomUUID();
let editor: ProxyEditor | undefined;

afterEach(async () => {
  if (editor !== undefined && editor.child.exitCode === null) {
    await editor.close().catch(() => undefined);
  }
  editor = undefined;
  const left = await leftAfterEnd(() => processesWithEnv(MARK, mark));
  expect(left, "processes left").toEqual([]);
  mark = randomUUID();
});

const start = (mode: string[]) =>
  startProxyEditor({
    agent: [process.execPath, V2_AGENT, ...mode],
    env: { ...process.env, [MARK]: mark },
  });

/** The text of the last content a tool call got, and its last status. */
function shown(e: ProxyEditor, toolCallId: string): { text: string; status: unknown } {
  const updates = e.updates().filter((u) => u["toolCallId"] === toolCallId);
  const content = updates.filter((u) => Array.isArray(u["content"])).at(-1)?.["content"] as
    Array<{ type: string; content?: { text?: string } }> | undefined;
  return {
    text: (content ?? []).map((item) => item.content?.text ?? `[${item.type}]`).join("\n"),
    status: updates.filter((u) => u["status"] !== undefined).at(-1)?.["status"],
  };
}

describe("acp-terminal proxy in front of an agent that speaks only v2, for a v1 editor", () => {
  it("answers the editor's v1 initialize with the v2 agent's name, and its prompt at the turn's end", async () => {
    editor = await start(["render"]);
    expect(editor.initialized).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: "v2-fixture" },
    });
    const sessionId = await editor.newSession();
    expect(await editor.prompt(sessionId, "go")).toBe("end_turn");
    const text = editor
      .updates()
      .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
      .map((u) => (u["content"] as { text: string }).text)
      .join("");
    expect(text).toBe("all done\n");
    // Nothing of v2 reached the editor: no v2 update variants, no terminal items.
    const variants = new Set(editor.updates().map((u) => u["sessionUpdate"]));
    expect([...variants].sort()).toEqual(["agent_message_chunk", "tool_call", "tool_call_update"]);
    expect(editor.received.some((l) => l.includes(`"type":"terminal"`))).toBe(false);
  });

  it("shows the agent's v2 terminals as text, through the emulator: redraws, a snapshot that replaces, a chunk before the announce", async () => {
    editor = await start(["render"]);
    const sessionId = await editor.newSession();
    await editor.prompt(sessionId, "go");
    expect(shown(editor, "call-progress")).toEqual({
      text: "```text\nbuilding\n[##########] 100%\ndone\n```\nexit 0",
      status: "completed",
    });
    expect(shown(editor, "call-replay")).toEqual({
      text: "```text\nfresh 1\nfresh 2\nfresh 3\n```\nexit 2",
      status: "failed",
    });
    expect(shown(editor, "call-early").text).toBe("```text\nearly bytes\n```\nexit 0");
  });

  it("ends the editor's prompt cancelled when it cancels the turn", async () => {
    editor = await start(["cancel", "/dev/null"]);
    const sessionId = await editor.newSession();
    const turn = editor.prompt(sessionId, "go");
    await until(() => shown(editor!, "call-sleep").text.includes("zzz"), {
      message: "the sleeper's output",
    });
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect(await turn).toBe("cancelled");
  });

  it("carries a 2 MiB flood of chunks to the terminal's final screen", async () => {
    editor = await start(["flood", "2", "0"]);
    const sessionId = await editor.newSession();
    expect(await editor.prompt(sessionId, "go")).toBe("end_turn");
    const { text, status } = shown(editor, "call-flood");
    expect(status).toBe("completed");
    expect(text.endsWith(`${"y".repeat(63)}\n\`\`\`\nexit 0`)).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024 + 100);
  });

  it("passes a v2 editor's session with a v2 agent through unchanged, a 1 MiB flood of chunks included", async () => {
    const child = spawn(
      process.execPath,
      [CLI, "proxy", "--", process.execPath, V2_AGENT, "flood", "1", "0"],
      { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, [MARK]: mark } },
    );
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => lines.push(line));
    const ask = async (id: number, method: string, params: unknown) => {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return until(() => lines.find((l) => l.startsWith(`{"jsonrpc":"2.0","id":${id},`)), {
        message: `the answer to ${method}`,
      });
    };
    const init = await ask(1, "initialize", {
      protocolVersion: 2,
      info: { name: "v2-editor", version: "1" },
      capabilities: {},
    });
    // The agent's own line (the SDK's key order), not one the proxy made.
    expect(init).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2,"info":{"name":"v2-fixture","version":"1.0.0"},"capabilities":{"session":{"mcp":{"stdio":{}}}}}}`,
    );
    await ask(2, "session/new", { cwd: process.cwd(), mcpServers: [] });
    await ask(3, "session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "go" }] });
    await until(() => lines.some((l) => l.includes(`"stopReason":"end_turn"`)), {
      message: "the turn's end",
    });
    const chunks = lines.filter((l) => l.includes(`"terminal_output_chunk"`));
    expect(chunks).toHaveLength(16);
    expect(new Set(chunks).size).toBe(1);
    expect(chunks[0]).toMatch(
      /^\{"jsonrpc":"2.0","method":"session\/update","params":\{"sessionId":"s1","update":\{"sessionUpdate":"terminal_output_chunk","terminalId":"flood","data":"/,
    );
    child.stdin.end();
    await once(child, "exit");
  });
});
