#!/usr/bin/env node
/**
 * An ACP client that hosts terminals for an agent: it launches echo-agent.mjs as a child process,
 * speaks ACP with it over stdio, advertises the terminal capability, opens a session and sends
 * one prompt. The agent's terminals run here, through a TerminalHost bound to the client.
 *
 *   pnpm example            (builds, then runs this file)
 *   node examples/serve-terminals.mjs [path/to/agent.mjs]
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { TerminalHost, bindTerminalHost, terminalClientCapabilities } from "acp-terminal";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const agentPath = process.argv[2] ?? fileURLToPath(new URL("./echo-agent.mjs", import.meta.url));
const agentProcess = spawn(process.execPath, [agentPath], { stdio: ["pipe", "pipe", "inherit"] });
const agentExited = once(agentProcess, "exit");

const host = new TerminalHost();
host.on("create", ({ info }) =>
  console.error(`[terminal] ${info.command} ${info.args.join(" ")} (cwd ${info.cwd})`),
);
host.on("exit", ({ exitStatus }) =>
  console.error(`[terminal] exited: ${JSON.stringify(exitStatus)}`),
);

const sessionCwds = new Map();
const app = client({ name: "serve-terminals-example" });
const binding = bindTerminalHost(app, host, {
  sessionCwd: (sessionId) => sessionCwds.get(sessionId),
});

const stream = ndJsonStream(
  Writable.toWeb(agentProcess.stdin),
  Readable.toWeb(agentProcess.stdout),
);
let exitCode = 0;
try {
  await app.connectWith(stream, async (agent) => {
    await agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: false, writeTextFile: false },
        ...terminalClientCapabilities(),
      },
    });
    const cwd = process.cwd();
    const session = await agent.buildSession(cwd).start();
    sessionCwds.set(session.sessionId, cwd);
    const done = session.prompt("run the demo commands");
    for (;;) {
      const message = await session.nextUpdate();
      if (message.kind === "stop") {
        console.error(`[agent] stopped: ${message.stopReason}`);
        break;
      }
      const { update } = message;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        process.stdout.write(update.content.text);
      } else if (update.sessionUpdate === "tool_call") {
        console.error(`[tool call] ${update.title} (${update.status})`);
      }
    }
    await done;
    session.dispose();
  });
} catch (error) {
  console.error(`serve-terminals: ${error instanceof Error ? error.message : String(error)}`);
  exitCode = 1;
} finally {
  agentProcess.stdin.end();
  // An agent that ignores the end of its input is killed rather than waited for forever
  // (agentExited rejects only if the process could not be spawned at all).
  const killTimer = setTimeout(() => agentProcess.kill("SIGKILL"), 5_000);
  await agentExited.catch(() => undefined);
  clearTimeout(killTimer);
  await binding.whenIdle();
  await host.dispose();
}
process.exitCode = exitCode;
