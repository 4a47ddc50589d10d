/**
 * The `_acp-terminal/*` extensions over real stdio, against real pipes and PTYs: stdin write and
 * end-of-file, PTY resize, signals, an interactive prompt, a REPL (node -i in a PTY), and a command
 * that never reads.
 */
import type { TerminalOutputResponse } from "@agentclientprotocol/sdk";
import { encodeKeys } from "acp-terminal/keys";
import { MAX_PTY_DIMENSION } from "acp-terminal/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  outputWhere,
  rejectionOf,
  startTerminalClient,
  type TerminalClientProcess,
} from "./support/terminal-client.js";
import { until, withDeadline } from "./support/until.js";

type RequestErrorLike = { code: number; message: string; data?: unknown };

let peer: TerminalClientProcess;
beforeEach(() => {
  peer = startTerminalClient({ host: { killGraceMs: 500, maxPendingStdinBytes: 256 * 1024 } });
});
afterEach(async () => {
  await peer.stop();
});

const sessionId = "session-x";
const stdin = { "acp-terminal": { stdin: true } };

describe("_acp-terminal extensions over stdio", () => {
  it("writes text and bytes to cat, then ends its input", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "cat",
      _meta: stdin,
    });
    const ids = { sessionId, terminalId };
    expect(await peer.client.request("_acp-terminal/write", { ...ids, data: "héllo\n" })).toEqual(
      {},
    );
    await outputWhere(peer.client, ids, (out) => out === "héllo\n");
    await peer.client.request("_acp-terminal/write", {
      ...ids,
      dataBase64: Buffer.from("bytes\n").toString("base64"),
      eof: true,
    });
    expect(await peer.client.request("terminal/wait_for_exit", ids)).toEqual({
      exitCode: 0,
      signal: null,
    });
    expect((await peer.client.request<TerminalOutputResponse>("terminal/output", ids)).output).toBe(
      "héllo\nbytes\n",
    );
    const closed = await rejectionOf(
      peer.client.request("_acp-terminal/write", { ...ids, data: "late" }),
    );
    expect(closed.code).toBe(-32603);
    expect(closed.data).toMatchObject({ reason: expect.stringMatching(/^(exited|stdin_closed)$/) });
    await peer.client.request("terminal/release", ids);
  });

  it("refuses to write to a terminal created without stdin, saying how to fix it", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sleep",
      args: ["30"],
    });
    const error = await rejectionOf(
      peer.client.request("_acp-terminal/write", { sessionId, terminalId, data: "x" }),
    );
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({ reason: "stdin_closed" });
    expect(error.message).toContain("stdin");
    await peer.client.request("terminal/release", { sessionId, terminalId });
  });

  it("drives a shell read prompt to completion", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sh",
      args: ["-c", 'printf "name? "; read name; echo "hello, $name"'],
      _meta: stdin,
    });
    const ids = { sessionId, terminalId };
    await outputWhere(peer.client, ids, (out) => out.endsWith("name? "));
    await peer.client.request("_acp-terminal/write", { ...ids, data: "world\n" });
    expect(await peer.client.request("terminal/wait_for_exit", ids)).toEqual({
      exitCode: 0,
      signal: null,
    });
    expect((await peer.client.request<TerminalOutputResponse>("terminal/output", ids)).output).toBe(
      "name? hello, world\n",
    );
  });

  it("drives a REPL in a PTY: node -i keeps state across typed lines and ends on Ctrl-D", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: process.execPath,
      args: ["-i"],
      env: [{ name: "NODE_OPTIONS", value: "" }],
      _meta: { "acp-terminal": { pty: { cols: 100, rows: 30 } } },
    });
    const ids = { sessionId, terminalId };
    const type = (keys: string[]) =>
      peer.client.request("_acp-terminal/write", { ...ids, data: encodeKeys(keys) });
    await outputWhere(peer.client, ids, (out) => out.endsWith("\n> "));
    await type(["const answer = 6 * 7", "Enter"]);
    await outputWhere(peer.client, ids, (out) =>
      out.endsWith("> const answer = 6 * 7\nundefined\n> "),
    );
    await type(["answer + 0.5", "Enter"]);
    await outputWhere(peer.client, ids, (out) => out.endsWith("> answer + 0.5\n42.5\n> "));
    await type(["C-d"]);
    expect(await peer.client.request("terminal/wait_for_exit", ids)).toEqual({
      exitCode: 0,
      signal: null,
    });
    const { output, exitStatus } = await peer.client.request<TerminalOutputResponse>(
      "terminal/output",
      ids,
    );
    expect(output).toMatch(/> answer \+ 0\.5\n42\.5\n> \n?$/);
    expect(exitStatus).toEqual({ exitCode: 0, signal: null });
    await peer.client.request("terminal/release", ids);
  });

  it("resizes a PTY, as stty size inside it sees", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sh",
      args: ["-c", "stty size; read line; stty size"],
      _meta: { "acp-terminal": { pty: { cols: 100, rows: 30 }, stdin: true } },
    });
    const ids = { sessionId, terminalId };
    await outputWhere(peer.client, ids, (out) => out.includes("30 100"));
    expect(
      await peer.client.request("_acp-terminal/resize", { ...ids, cols: 120, rows: 40 }),
    ).toEqual({});
    await peer.client.request("_acp-terminal/write", { ...ids, data: encodeKeys(["Enter"]) });
    await outputWhere(peer.client, ids, (out) => out.includes("40 120"));
    expect(await peer.client.request("terminal/wait_for_exit", ids)).toEqual({
      exitCode: 0,
      signal: null,
    });
  });

  it("accepts PTY sizes up to MAX_PTY_DIMENSION and names the field beyond it, at create and resize", async () => {
    const max = MAX_PTY_DIMENSION;
    const tooWide = await rejectionOf(
      peer.client.request("terminal/create", {
        sessionId,
        command: "true",
        args: [],
        _meta: { "acp-terminal": { pty: { cols: max + 1, rows: 24 } } },
      }),
    );
    expect(tooWide.code).toBe(-32602);
    expect(tooWide.message).toBe(
      `Invalid params for terminal/create: _meta["acp-terminal"].pty.cols: expected an integer from 1 to ${max}, received ${max + 1}`,
    );
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sh",
      args: ["-c", "stty size; read line"],
      _meta: { "acp-terminal": { pty: { cols: max, rows: 24 } } },
    });
    const ids = { sessionId, terminalId };
    await outputWhere(peer.client, ids, (out) => out.includes(`24 ${max}`));
    const tooTall = await rejectionOf(
      peer.client.request("_acp-terminal/resize", { ...ids, cols: 80, rows: max + 1 }),
    );
    expect(tooTall.code).toBe(-32602);
    expect(tooTall.message).toBe(
      `Invalid params for _acp-terminal/resize: rows: expected an integer from 1 to ${max}, received ${max + 1}`,
    );
    await peer.client.request("terminal/release", ids);
  });

  it("refuses to resize a pipe terminal with a clear error", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sleep",
      args: ["30"],
    });
    const error = await rejectionOf(
      peer.client.request("_acp-terminal/resize", { sessionId, terminalId, cols: 80, rows: 24 }),
    );
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({ reason: "not_pty" });
    expect(error.message).toMatch(/PTY/);
    await peer.client.request("terminal/release", { sessionId, terminalId });
  });

  it("ends sleep with SIGINT through _acp-terminal/signal, and rejects unknown signal names", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sleep",
      args: ["30"],
    });
    const ids = { sessionId, terminalId };
    const unknown = await rejectionOf(
      peer.client.request("_acp-terminal/signal", { ...ids, signal: "SIGBOGUS" }),
    );
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain("SIGINT");
    expect(await peer.client.request("_acp-terminal/signal", { ...ids, signal: "SIGINT" })).toEqual(
      {},
    );
    expect(await peer.client.request("terminal/wait_for_exit", ids)).toEqual({
      exitCode: null,
      signal: "SIGINT",
    });
  });

  it("sends Ctrl-C as a key to a PTY, which interrupts the foreground command", async () => {
    // The process that prints "ready" is the one ^C must reach. With `sh -c "echo ready; sleep 30"`
    // a ^C can land while dash forks sleep, where dash's own SIGINT handler swallows it (as in any
    // real terminal), so the readiness line would not mean "interruptible".
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: process.execPath,
      args: ["-e", "console.log('ready'); setTimeout(() => {}, 30000)"],
      _meta: { "acp-terminal": { pty: true, stdin: true } },
    });
    const ids = { sessionId, terminalId };
    await outputWhere(peer.client, ids, (out) => out.includes("ready"));
    await peer.client.request("_acp-terminal/write", { ...ids, data: encodeKeys(["C-c"]) });
    expect(await peer.client.request("terminal/wait_for_exit", ids)).toEqual({
      exitCode: null,
      signal: "SIGINT",
    });
  });

  it("does not block on a command that never reads: other requests are answered, then writes fail", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sleep",
      args: ["30"],
      _meta: stdin,
    });
    const ids = { sessionId, terminalId };
    const chunk = "x".repeat(128 * 1024); // more than a pipe holds (64 KiB on Linux)
    const writes: Array<{ done: Promise<unknown>; state: "pending" | "ok" | RequestErrorLike }> =
      [];
    let answeredWhileWritePending = false;
    let refusal: RequestErrorLike | undefined;
    const refusedWrite = () =>
      writes.map((w) => w.state).find((state) => typeof state === "object");
    for (let i = 0; i < 16 && refusal === undefined; i++) {
      const entry: (typeof writes)[number] = { done: Promise.resolve(), state: "pending" };
      entry.done = peer.client.request("_acp-terminal/write", { ...ids, data: chunk }).then(
        () => (entry.state = "ok"),
        (error: RequestErrorLike) => (entry.state = error),
      );
      writes.push(entry);
      const output = await peer.client.request<TerminalOutputResponse>("terminal/output", ids);
      expect(output.exitStatus).toBeUndefined();
      if (writes.some((w) => w.state === "pending")) {
        answeredWhileWritePending = true;
      }
      refusal = refusedWrite();
    }
    refusal ??= await until(refusedWrite, { message: "a write to be refused" });
    expect(answeredWhileWritePending).toBe(true);
    expect(refusal?.code).toBe(-32603);
    expect(refusal?.data).toMatchObject({ reason: "limit_reached" });
    expect(refusal?.message).toContain("not reading");
    await peer.client.request("terminal/release", ids);
    // Writes still queued when the command went away settle instead of hanging.
    await withDeadline(
      Promise.all(writes.map((w) => w.done)),
      5_000,
      "queued writes to settle after release",
    );
    expect(writes.every((w) => w.state !== "pending")).toBe(true);
  });
});
