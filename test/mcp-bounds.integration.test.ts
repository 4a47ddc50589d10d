/**
 * Every answer of `acp-terminal-mcp` is bounded, and the server answers the next call after any
 * answer: raw MCP over real stdio, each answer measured in bytes as it crossed the pipe. A message
 * over the stdio limit gets an error of its own; a command the kernel could not run (over
 * MAX_ARG_STRLEN) is refused before anything runs; lists of runs with the longest commands show
 * them cut with their size; the largest output answers are cut to fit and say so; error answers
 * stay short whatever they quote.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { MCP_MAIN, markedEnv } from "./support/mcp-server.js";
import { until } from "./support/until.js";

/** The server's own bounds (answer-bounds.ts, stdio-transport.ts). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const MAX_ARGUMENT_BYTES = 128 * 1024;

let workspace: string;
let mark: string;
const peers: RawMcp[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-bounds-")));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(peers.splice(0).map((peer) => peer.stop()));
  await untilNoneMarked(mark);
});

interface Answer {
  bytes: number;
  message: {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  };
}

interface RawMcp {
  child: ChildProcessWithoutNullStreams;
  /** Sends one request line and resolves with the answer to its id (notifications skipped). */
  request(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<Answer>;
  /** Sends a line as it is and resolves with the answer to `id`. */
  send(line: string, id: number, timeoutMs?: number): Promise<Answer>;
  stop(): Promise<void>;
}

/** `acp-terminal-mcp` over stdio, spoken as raw JSON-RPC lines after a 2025-06-18 initialize. */
async function rawMcp(args: string[]): Promise<RawMcp> {
  mark = newMark();
  const child = spawn(process.execPath, [MCP_MAIN, "--workspace", workspace, ...args], {
    env: markedEnv(mark),
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr.resume();
  const answers = new Map<unknown, Answer>();
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
    const message = JSON.parse(line) as Answer["message"];
    if (message.id !== undefined) {
      answers.set(message.id, { bytes: Buffer.byteLength(line), message });
    }
  });
  let nextId = 100;
  const send = async (line: string, id: number, timeoutMs = 30_000): Promise<Answer> => {
    child.stdin.write(`${line}\n`);
    return until(() => answers.get(id), {
      timeoutMs,
      intervalMs: 5,
      message: `the answer to ${id}`,
    });
  };
  const request = (method: string, params: Record<string, unknown>, timeoutMs?: number) => {
    const id = ++nextId;
    return send(JSON.stringify({ jsonrpc: "2.0", id, method, params }), id, timeoutMs);
  };
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const peer: RawMcp = {
    child,
    request,
    send,
    stop: async () => {
      child.stdin.end();
      await until(() => child.exitCode !== null || child.signalCode !== null, {
        timeoutMs: 10_000,
        message: "the server to exit",
      }).catch(() => child.kill("SIGKILL"));
    },
  };
  peers.push(peer);
  return peer;
}

const call = (peer: RawMcp, name: string, args: Record<string, unknown>, timeoutMs?: number) =>
  peer.request("tools/call", { name, arguments: args }, timeoutMs);

/** The server still answers: tools/list, in full. */
async function expectServing(peer: RawMcp): Promise<void> {
  const listed = await peer.request("tools/list", {});
  expect((listed.message.result?.["tools"] as unknown[]).length).toBeGreaterThan(0);
}

test("a message over the 10 MiB stdio limit gets an error of its own, and the server answers the next call", async () => {
  const peer = await rawMcp(["--yes"]);
  const huge = "x".repeat(MAX_MESSAGE_BYTES + 1024 * 1024);
  const answer = await peer.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "exec", arguments: { command: huge } },
    }),
    7,
  );
  expect(answer.message.error?.code).toBe(-32600);
  expect(answer.message.error?.message).toMatch(
    /^Message too large: 11534\d{3} bytes, over this server's limit of 10485760 bytes/,
  );
  expect(answer.bytes).toBeLessThan(1024);
  await expectServing(peer);
});

test("a command the kernel could not run (an argument over 128 KiB) is refused before anything runs, and nothing is kept", async () => {
  const peer = await rawMcp(["--yes"]);
  const refused = await call(peer, "exec", { command: `echo ${"y".repeat(9 * 1024 * 1024)}` });
  const result = refused.message.result!;
  expect(result["isError"]).toBe(true);
  expect(JSON.stringify(result["content"])).toContain(
    `the kernel runs no command with an argument or variable over ${MAX_ARGUMENT_BYTES} bytes`,
  );
  expect(refused.bytes).toBeLessThan(8 * 1024);
  const list = await call(peer, "process", { action: "list" });
  expect((list.message.result!["structuredContent"] as { processes: unknown[] }).processes).toEqual(
    [],
  );
});

test("lists of 30 runs with the longest commands a run can hold show each cut with its size, in a small answer, and page", async () => {
  const peer = await rawMcp(["--yes", "--max-runs", "64"]);
  const command = `sleep 30 #${"z".repeat(MAX_ARGUMENT_BYTES - 20)}`;
  for (let i = 0; i < 30; i++) {
    const started = await call(peer, "exec", { command, background: true });
    expect(started.message.result!["isError"] ?? false).toBe(false);
  }
  const list = await call(peer, "process", { action: "list", limit: 500 });
  const processes = (
    list.message.result!["structuredContent"] as { processes: { command: string }[] }
  ).processes;
  expect(processes).toHaveLength(30);
  for (const run of processes) {
    expect(run.command).toBe(`${command.slice(0, 500)}… (${command.length} characters)`);
  }
  expect(list.bytes).toBeLessThan(128 * 1024);
  // Paged: a page of `limit` from `offset`, with the total and where the next page starts.
  const page = async (offset: number) =>
    (await call(peer, "process", { action: "list", limit: 12, offset })).message.result![
      "structuredContent"
    ] as { processes: unknown[]; total: number; nextOffset?: number };
  expect(await page(0)).toMatchObject({ total: 30, nextOffset: 12 });
  const last = await page(24);
  expect(last.processes).toHaveLength(6);
  expect(last.nextOffset).toBeUndefined();
  await expectServing(peer);
});

test("the largest output answers (5,000,000 control characters, 6 bytes each in JSON, at the largest token budget) are cut to fit 4 MiB, say what was cut, and the next call is answered", async () => {
  const peer = await rawMcp([
    "--yes",
    "--max-output-chars",
    "5000000",
    "--output-limit",
    String(64 * 1024 * 1024),
  ]);
  const run = await call(
    peer,
    "exec",
    {
      command: "head -c 5000000 /dev/zero | tr '\\0' '\\1'; echo END",
      yieldMs: 60_000,
      // The largest budget a call may ask for: 1 MiB of output, 6 MiB once escaped in JSON.
      maxOutputTokens: 262_144,
    },
    60_000,
  );
  expect(run.bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  const structured = run.message.result!["structuredContent"] as {
    status: string;
    output: string;
    answerCut: string;
    sessionId: string;
  };
  expect(structured.status).toBe("completed");
  expect(structured.output.endsWith("\u0001END\n")).toBe(true);
  // Cut to its end, with nothing of ours written into it: answerCut says what was cut.
  expect(structured.output).toMatch(/^\u0001+END\n$/);
  expect(structured.answerCut).toMatch(
    /^this answer was cut to fit 4194304 bytes: output: kept the last \d+ of \d{7} characters/,
  );
  const log = await call(peer, "process", {
    action: "log",
    sessionId: structured.sessionId,
    limit: 10,
  });
  expect(log.bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  await expectServing(peer);
});

test("error answers stay short whatever they quote: an unknown 1 MiB tool name, a 1 MiB unknown argument name", async () => {
  const peer = await rawMcp(["--yes"]);
  const unknownTool = await call(peer, "t".repeat(1024 * 1024), {});
  expect(unknownTool.message.error?.message).toMatch(
    /^Unknown tool "t{100}…": this server has exec, process$/,
  );
  expect(unknownTool.bytes).toBeLessThan(1024);
  const badArgs = await call(peer, "exec", { command: "true", ["k".repeat(1024 * 1024)]: 1 });
  expect(badArgs.message.result!["isError"]).toBe(true);
  expect(badArgs.bytes).toBeLessThan(10 * 1024);
  await expectServing(peer);
});
