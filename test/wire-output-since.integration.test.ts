/**
 * Exact increments over real stdio: `terminal/output` with `_meta["acp-terminal"].sinceByte`
 * returns only the text after that stream offset, with `fromByte`. This test process is an SDK
 * agent; the terminal host runs in test/fixtures/terminal-client.mjs.
 */
import type { TerminalOutputResponse } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  outputWhere,
  rejectionOf,
  startTerminalClient,
  type TerminalClientProcess,
} from "./support/terminal-client.js";

let peer: TerminalClientProcess | undefined;
afterEach(async () => {
  await peer?.stop();
  peer = undefined;
});

const sessionId = "since";

interface SinceCursors {
  totalBytes: number;
  droppedBytes: number;
  fromByte?: number;
}

function cursorsOf(response: TerminalOutputResponse): SinceCursors {
  return response._meta?.["acp-terminal"] as SinceCursors;
}

function start(options: Parameters<typeof startTerminalClient>[0] = {}): TerminalClientProcess {
  peer = startTerminalClient(options);
  return peer;
}

async function finished(
  client: TerminalClientProcess,
  command: string,
  outputByteLimit?: number,
): Promise<string> {
  const { terminalId } = await client.client.request("terminal/create", {
    sessionId,
    command: "sh",
    args: ["-c", command],
    ...(outputByteLimit === undefined ? {} : { outputByteLimit }),
  });
  await client.client.request("terminal/wait_for_exit", { sessionId, terminalId });
  return terminalId;
}

const since = (client: TerminalClientProcess, terminalId: string, sinceByte: unknown) =>
  client.client.request<TerminalOutputResponse>("terminal/output", {
    sessionId,
    terminalId,
    _meta: { "acp-terminal": { sinceByte } },
  });

describe("terminal/output with sinceByte over stdio", () => {
  it("returns each increment of a running command exactly once", async () => {
    const client = start();
    const { terminalId } = await client.client.request("terminal/create", {
      sessionId,
      command: "cat",
      args: [],
      _meta: { "acp-terminal": { stdin: true } },
    });
    const write = (data: string) =>
      client.client.request("_acp-terminal/write", { sessionId, terminalId, data });
    await write("first line\n");
    await outputWhere(client.client, { sessionId, terminalId }, (output) =>
      output.includes("first line\n"),
    );
    const first = await since(client, terminalId, 0);
    expect(first).toEqual({
      output: "first line\n",
      truncated: false,
      _meta: { "acp-terminal": { totalBytes: 11, droppedBytes: 0, fromByte: 0 } },
    });
    expect((await since(client, terminalId, 11)).output).toBe("");
    await write("é second\n");
    await outputWhere(client.client, { sessionId, terminalId }, (output) =>
      output.endsWith("é second\n"),
    );
    const second = await since(client, terminalId, 11);
    expect(second.output).toBe("é second\n");
    expect(cursorsOf(second)).toEqual({ totalBytes: 21, droppedBytes: 0, fromByte: 11 });
    await client.client.request("_acp-terminal/write", { sessionId, terminalId, eof: true });
    await client.client.request("terminal/wait_for_exit", { sessionId, terminalId });
    const last = await since(client, terminalId, 21);
    expect(last).toMatchObject({ output: "", exitStatus: { exitCode: 0, signal: null } });
  });

  it("starts at the first retained character when the offset was dropped: fromByte - sinceByte were missed", async () => {
    const client = start();
    const terminalId = await finished(client, "printf 'éééééééééé'", 9);
    const response = await since(client, terminalId, 2);
    expect(response.output).toBe("éééé");
    expect(response.truncated).toBe(true);
    expect(cursorsOf(response)).toEqual({ totalBytes: 20, droppedBytes: 12, fromByte: 12 });
  });

  it("answers empty at totalBytes and -32602 beyond it or for a malformed sinceByte", async () => {
    const client = start();
    const terminalId = await finished(client, "printf 12345");
    expect(cursorsOf(await since(client, terminalId, 5))).toEqual({
      totalBytes: 5,
      droppedBytes: 0,
      fromByte: 5,
    });
    const beyond = await rejectionOf(since(client, terminalId, 6));
    expect(beyond.code).toBe(-32602);
    expect(beyond.data).toMatchObject({ field: '_meta["acp-terminal"].sinceByte' });
    expect(beyond.message).toBe(
      'Invalid params for terminal/output: _meta["acp-terminal"].sinceByte: 6 is beyond totalBytes 5; pass the totalBytes of an earlier output read',
    );
    for (const bad of [-1, 2.5, "3", null]) {
      const error = await rejectionOf(since(client, terminalId, bad));
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(
        /^Invalid params for terminal\/output: _meta\["acp-terminal"\]\.sinceByte: expected a non-negative integer/,
      );
      expect(error.data).toMatchObject({ field: '_meta["acp-terminal"].sinceByte' });
    }
  });

  it("without sinceByte answers as before: the whole retained tail, no fromByte", async () => {
    const client = start();
    const terminalId = await finished(client, "printf 12345");
    const response = await client.client.request<TerminalOutputResponse>("terminal/output", {
      sessionId,
      terminalId,
    });
    expect(response._meta).toEqual({ "acp-terminal": { totalBytes: 5, droppedBytes: 0 } });
    expect(response.output).toBe("12345");
  });

  it("keeps fromByte exact when the increment is trimmed to the agent's message limit", async () => {
    const maxMessageBytes = 256 * 1024; // output budget: 192 KiB of escaped JSON
    const client = start({ maxMessageBytes });
    const floodBytes = 100 * 1024; // escape bytes: 600 KiB once escaped
    const terminalId = await finished(
      client,
      `printf start; head -c ${floodBytes} /dev/zero | tr '\\000' '\\033'; printf END`,
      1e7,
    );
    const response = await since(client, terminalId, 2);
    expect(Buffer.byteLength(JSON.stringify(response))).toBeLessThan(maxMessageBytes);
    expect(response.output.endsWith("\x1bEND")).toBe(true);
    expect(response.truncated).toBe(true);
    const cursors = cursorsOf(response);
    expect(cursors.totalBytes).toBe(5 + floodBytes + 3);
    expect(cursors.droppedBytes).toBe(0);
    expect(cursors.fromByte).toBe(cursors.totalBytes - Buffer.byteLength(response.output));
    expect(cursors.fromByte).toBeGreaterThan(2);
  });
});
