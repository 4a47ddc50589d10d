#!/usr/bin/env node
/**
 * The baseline of bench/cli-fatal.bench.mjs: a bare ACP client on the same SDK, with nothing but
 * what reaching the error takes. `fatal-client.mjs AGENT_ARGS_JSON` starts the agent (its stderr
 * passed through), sends initialize, session/new and (if that succeeds) a prompt, and prints the
 * first failure on stderr the moment the SDK reports it, the way the CLI's line reads:
 *
 *   session/new failed: Internal error (details: …; sentAt: …)
 *   Agent exited during the turn
 *
 * then closes the agent's stdin and exits once the agent has exited (its teardown).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";

const [command, ...args] = /** @type {string[]} */ (JSON.parse(process.argv[2] ?? "[]"));
const agentProcess = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = once(agentProcess, "exit");
const connection = client({ name: "bench-fatal-client" }).connect(
  ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout)),
);

/** @param {unknown} error */
function line(what, error) {
  const { message, data } = /** @type {{ message?: string, data?: Record<string, unknown> }} */ (
    error
  );
  const details =
    data === undefined
      ? ""
      : ` (${Object.entries(data)
          .map(
            ([key, value]) =>
              `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`,
          )
          .join("; ")})`;
  return `${what} failed: ${message}${details}\n`;
}

try {
  await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent
    .request("session/new", { cwd: process.cwd(), mcpServers: [] })
    .catch((error) => {
      process.stderr.write(line("session/new", error));
      throw error;
    });
  await Promise.race([
    connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    }),
    connection.closed,
  ]);
  process.stderr.write("Agent exited during the turn\n");
} catch {
  // Said above.
}
agentProcess.stdin.end();
await exited;
