/**
 * A v1 prompt for a session the agent does not know is -32002 with the id quoted cut, so a huge
 * invented id gets a small answer; a session/new with a relative cwd is -32602 in v1 and v2. The
 * built agent over real stdio, raw JSON lines.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { withDeadline } from "../../../test/support/until.js";

const AGENT = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** Raw JSON lines to the agent, and the answer to one request id (skipping other lines). */
function talk(agent: ChildProcessByStdio<Writable, Readable, null>) {
  const lines = createInterface({ input: agent.stdout })[Symbol.asyncIterator]();
  const answer = async (id: number): Promise<string> => {
    for (;;) {
      const next = await withDeadline(lines.next(), 10_000, `the answer to request ${id}`);
      if (next.done === true) {
        throw new Error("the agent closed stdout");
      }
      if ((JSON.parse(next.value) as { id?: unknown }).id === id) {
        return next.value;
      }
    }
  };
  const send = (message: unknown) => agent.stdin.write(`${JSON.stringify(message)}\n`);
  return { answer, send };
}

it("session/prompt for an unknown 1 MiB session id is answered -32002 in under 1 KiB", async () => {
  const agent = spawn(process.execPath, [AGENT], { stdio: ["pipe", "pipe", "ignore"] });
  try {
    const { answer, send } = talk(agent);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
    await answer(1);
    const sessionId = "x".repeat(1024 * 1024);
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "help" }] },
    });
    const line = await answer(2);
    expect(Buffer.byteLength(line)).toBeLessThan(1024);
    expect(JSON.parse(line)).toMatchObject({ error: { code: -32002 } });
  } finally {
    agent.kill("SIGKILL");
    await once(agent, "exit");
  }
});

it.each([
  { protocolVersion: 1, initialize: { clientCapabilities: {} }, newSession: { mcpServers: [] } },
  {
    protocolVersion: 2,
    initialize: { info: { name: "test", version: "1.0.0" }, capabilities: {} },
    newSession: {},
  },
])(
  "session/new with a relative cwd is -32602 naming the cwd (protocol version $protocolVersion)",
  async ({ protocolVersion, initialize, newSession }) => {
    const agent = spawn(process.execPath, [AGENT], { stdio: ["pipe", "pipe", "ignore"] });
    try {
      const { answer, send } = talk(agent);
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion, ...initialize },
      });
      expect(JSON.parse(await answer(1))).toMatchObject({ result: { protocolVersion } });
      send({
        jsonrpc: "2.0",
        id: 2,
        method: "session/new",
        params: { cwd: "relative/dir", ...newSession },
      });
      expect(JSON.parse(await answer(2))).toMatchObject({
        error: {
          code: -32602,
          message: expect.stringContaining('cwd must be an absolute path, received "relative/dir"'),
        },
      });
    } finally {
      agent.kill("SIGKILL");
      await once(agent, "exit");
    }
  },
);
