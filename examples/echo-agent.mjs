#!/usr/bin/env node
/**
 * A small ACP agent (no model) that answers every prompt by running a few commands in the
 * client's terminals and streaming what they printed back as agent_message_chunk updates.
 * It speaks ACP on stdin/stdout; launch it from a client such as serve-terminals.mjs.
 */
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { readTerminalCapability, WRITE_METHOD } from "acp-terminal/protocol";
import { agent, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

/** What the agent runs: direct exec with args, a shell line (no args), and a failing command. */
const COMMANDS = [
  { title: "uname -a", command: "uname", args: ["-a"] },
  { title: "printf with args", command: "printf", args: ["%s\\n", "hello", "from ACP terminals"] },
  { title: "a shell line", command: "echo running in $PWD | tr a-z A-Z" },
  { title: "a failing command", command: "ls", args: ["/definitely/not/here"] },
];

let clientCapabilities = {};
const sessions = new Map();

function say(client, sessionId, text) {
  return client.notify("session/update", {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });
}

const quote = (word) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

function describeExit({ exitCode, signal }) {
  return signal ? `killed by ${signal}` : `exit code ${exitCode}`;
}

/**
 * Runs one command in a client terminal shown inside a tool call; returns its output.
 * @param {any} client
 * @param {string} sessionId
 * @param {{ title: string; command: string; args?: string[]; meta?: Record<string, unknown> }} step
 */
async function runInTerminal(client, sessionId, { title, command, args, meta }) {
  const terminal = await client.createTerminal({
    sessionId,
    command,
    ...(args ? { args } : {}),
    cwd: sessions.get(sessionId),
    outputByteLimit: 64 * 1024,
    ...(meta ? { _meta: meta } : {}),
  });
  const toolCallId = randomUUID();
  try {
    await client.notify("session/update", {
      sessionId,
      update: {
        sessionUpdate: "tool_call",
        toolCallId,
        title,
        kind: "execute",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: terminal.id }],
      },
    });
  } catch (error) {
    await terminal.release();
    throw error;
  }
  return { terminal, toolCallId };
}

async function finish(client, sessionId, { terminal, toolCallId }) {
  try {
    const exit = await terminal.waitForExit();
    const { output, truncated } = await terminal.currentOutput();
    await client.notify("session/update", {
      sessionId,
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: exit.exitCode === 0 ? "completed" : "failed",
      },
    });
    return `${output}${truncated ? "[output truncated]\n" : ""}→ ${describeExit(exit)}\n\n`;
  } finally {
    await terminal.release();
  }
}

const app = agent({ name: "echo-agent" })
  .onRequest("initialize", ({ params }) => {
    clientCapabilities = params.clientCapabilities ?? {};
    return { protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} };
  })
  .onRequest("session/new", ({ params }) => {
    const sessionId = randomUUID();
    sessions.set(sessionId, params.cwd);
    return { sessionId };
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const { sessionId } = params;
    if (!clientCapabilities.terminal) {
      await say(
        client,
        sessionId,
        "This client has no terminals (clientCapabilities.terminal is not true).\n",
      );
      return { stopReason: "end_turn" };
    }
    for (const step of COMMANDS) {
      await say(
        client,
        sessionId,
        `$ ${step.args ? [step.command, ...step.args].map(quote).join(" ") : step.command}\n`,
      );
      await say(
        client,
        sessionId,
        await finish(client, sessionId, await runInTerminal(client, sessionId, step)),
      );
    }
    // Extensions are used only when the client advertised them.
    const extensions = readTerminalCapability(clientCapabilities);
    if (extensions?.methods.includes(WRITE_METHOD)) {
      await say(client, sessionId, "$ cat   (input sent with _acp-terminal/write)\n");
      const run = await runInTerminal(client, sessionId, {
        title: "cat with stdin",
        command: "cat",
        args: [],
        meta: { "acp-terminal": { stdin: true } },
      });
      await client.request(WRITE_METHOD, {
        sessionId,
        terminalId: run.terminal.id,
        data: "typed into stdin\n",
        eof: true,
      });
      await say(client, sessionId, await finish(client, sessionId, run));
    }
    return { stopReason: "end_turn" };
  });

const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
