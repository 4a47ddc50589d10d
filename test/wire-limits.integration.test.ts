/**
 * A `terminal/output` response must fit the agent's message limit after JSON escaping: a control
 * byte travels as `\u001b` (6 bytes). Here a command floods escape bytes with a huge
 * outputByteLimit, and the agent's real SDK reader (which drops a connection on an oversized
 * line) must still get its answer.
 */
import type { TerminalOutputResponse } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startTerminalClient, type TerminalClientProcess } from "./support/terminal-client.js";

let peer: TerminalClientProcess | undefined;
afterEach(async () => {
  await peer?.stop();
  peer = undefined;
});

const sessionId = "flood";

async function floodAndRead(client: TerminalClientProcess, floodBytes: number) {
  const { terminalId } = await client.client.request("terminal/create", {
    sessionId,
    command: "sh",
    args: ["-c", `head -c ${floodBytes} /dev/zero | tr '\\000' '\\033'; printf END`],
    outputByteLimit: 1e12,
  });
  await client.client.request("terminal/wait_for_exit", { sessionId, terminalId });
  const output = await client.client.request<TerminalOutputResponse>("terminal/output", {
    sessionId,
    terminalId,
  });
  await client.client.request("terminal/release", { sessionId, terminalId });
  return output;
}

describe("terminal/output under the message limit", () => {
  it("answers at the SDK's default 32 MiB limit after 6 MiB of escape bytes", async () => {
    peer = startTerminalClient();
    const output = await floodAndRead(peer, 6 * 1024 * 1024);
    expect(output.output.endsWith("\x1bEND")).toBe(true);
    expect(output.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(output))).toBeLessThan(32 * 1024 * 1024);
    const cursors = output._meta?.["acp-terminal"] as { totalBytes: number; droppedBytes: number };
    expect(cursors.totalBytes).toBe(6 * 1024 * 1024 + 3);
    expect(cursors.totalBytes - cursors.droppedBytes).toBe(Buffer.byteLength(output.output));
  });

  it("trims to a smaller limit both peers agreed on", async () => {
    const maxMessageBytes = 256 * 1024;
    peer = startTerminalClient({ maxMessageBytes });
    const output = await floodAndRead(peer, 1024 * 1024);
    expect(output.output.endsWith("\x1bEND")).toBe(true);
    expect(output.truncated).toBe(true);
    const size = Buffer.byteLength(JSON.stringify(output));
    expect(size).toBeLessThan(maxMessageBytes);
    expect(size).toBeGreaterThan(maxMessageBytes / 2 - 1024);
    const cursors = output._meta?.["acp-terminal"] as { totalBytes: number; droppedBytes: number };
    expect(cursors.totalBytes - cursors.droppedBytes).toBe(Buffer.byteLength(output.output));
    // The connection is still usable afterwards.
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "true",
    });
    expect(await peer.client.request("terminal/wait_for_exit", { sessionId, terminalId })).toEqual({
      exitCode: 0,
      signal: null,
    });
  });
});
