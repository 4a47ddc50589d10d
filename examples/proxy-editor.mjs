#!/usr/bin/env node
/**
 * An editor without terminals, in front of `acp-terminal proxy`: an ACP client on the SDK that
 * advertises no terminal, no file system and no `_meta` terminal output (as CodeCompanion,
 * avante.nvim or agent-shell do), drives the demo agent through the proxy, answers each permission
 * question the proxy asks (allow once), and prints what the editor received: the agent's messages,
 * the questions, and every tool call as its content came (each terminal as the proxy made it: its
 * screen in a fenced text block, then its exit).
 *
 *   corepack pnpm demo:proxy                 (builds, then runs this file with "demo")
 *   node examples/proxy-editor.mjs "run ls"  (any demo-agent prompt)
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const cli = fileURLToPath(new URL("../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const agent = fileURLToPath(new URL("../packages/demo-agent/dist/main.js", import.meta.url));
const prompt = process.argv[2] ?? "demo";

const proxy = spawn(process.execPath, [cli, "proxy", "--", process.execPath, agent], {
  stdio: ["pipe", "pipe", "inherit"],
});
const proxyExited = once(proxy, "exit");

const out = (line = "") => process.stdout.write(`${line}\n`);
const indent = (text) => text.replace(/^/gm, "    ");
/** The last content printed per tool call: an update that repeats it prints only its status. */
const shown = new Map();

function showToolCall(update) {
  const { toolCallId, status, title } = update;
  const head = `  tool call ${title === undefined ? toolCallId : JSON.stringify(title)}`;
  if (!Array.isArray(update.content)) {
    if (status !== undefined) {
      out(`${head}: ${status}`);
    }
    return;
  }
  const text = update.content
    .map((item) => (item.type === "content" ? (item.content?.text ?? "") : `[${item.type}]`))
    .join("\n");
  if (shown.get(toolCallId) === text) {
    if (status !== undefined) {
      out(`${head}: ${status}`);
    }
    return;
  }
  shown.set(toolCallId, text);
  out(`${head}${status === undefined ? "" : ` (${status})`}:`);
  out(indent(text === "" ? "(no content)" : text));
}

const app = client({ name: "proxy-editor-example" })
  .onNotification("session/update", ({ params }) => {
    const { update } = params;
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
      process.stdout.write(update.content.text);
    } else if (
      update.sessionUpdate === "tool_call" ||
      update.sessionUpdate === "tool_call_update"
    ) {
      showToolCall(update);
    }
  })
  .onRequest("session/request_permission", ({ params }) => {
    const option = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
    out(`  asked: ${params.toolCall.title} → ${option?.name ?? "cancelled"}`);
    return option === undefined
      ? { outcome: { outcome: "cancelled" } }
      : { outcome: { outcome: "selected", optionId: option.optionId } };
  });

const connection = app.connect(
  ndJsonStream(Writable.toWeb(proxy.stdin), Readable.toWeb(proxy.stdout)),
);
let exitCode = 0;
try {
  const init = await connection.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "proxy-editor-example", version: "1.0.0" },
  });
  out(`editor: initialized ${init.agentInfo?.name ?? "an agent"} through acp-terminal proxy`);
  const { sessionId } = await connection.agent.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [],
  });
  const { stopReason } = await connection.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: prompt }],
  });
  out(`editor: the turn ended: ${stopReason}`);
} catch (error) {
  process.stderr.write(`editor: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  proxy.stdin.end();
  await proxyExited;
}
process.exitCode = exitCode;
