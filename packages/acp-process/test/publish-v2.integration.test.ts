import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  agent,
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientContext,
  type SessionUpdate,
} from "@agentclientprotocol/sdk/experimental/v2";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { TerminalPublisher, type TerminalPublisherOptions } from "../src/v2.js";
import { localRig, until, type LocalRig } from "./support.js";
import { withDeadline } from "../../../test/support/until.js";
import { expectNoneLeft, processesWith } from "./tool-contract-support.js";

const MARKER = `publish-v2-${process.pid}`;
expectNoneLeft(MARKER);

type TerminalUpdateOf = Extract<SessionUpdate, { sessionUpdate: "terminal_update" }>;
type ChunkOf = Extract<SessionUpdate, { sessionUpdate: "terminal_output_chunk" }>;

interface Rig {
  local: LocalRig;
  publisher: TerminalPublisher;
  agentSide: ClientContext;
  sessionId: string;
  /** Every session/update the client received, in order, with the raw JSON line length. */
  updates: SessionUpdate[];
  of(terminalId: string): SessionUpdate[];
  dispose(): Promise<void>;
}

const dir = mkdtempSync(path.join(tmpdir(), "publish-v2-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rigs: Rig[] = [];
afterEach(async () => {
  await Promise.all(rigs.splice(0).map((rig) => rig.dispose()));
});

function streamOf(socket: Socket) {
  return ndJsonStream(
    Writable.toWeb(socket) as WritableStream<Uint8Array>,
    Readable.toWeb(socket) as ReadableStream<Uint8Array>,
  );
}

/**
 * An agent (this package's manager and publisher, on the local provider) and an SDK v2 client,
 * connected by ndJson over a real Unix socket.
 */
async function rig(
  options: Partial<TerminalPublisherOptions> & { sendGate?: Promise<void> } = {},
): Promise<Rig> {
  const { sendGate, ...publisherOptions } = options;
  const local = localRig();
  const socketPath = path.join(dir, `${randomUUID()}.sock`);
  let publisher!: TerminalPublisher;
  const agentApp = agent()
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      info: { name: "publish-test-agent", version: "0" },
      capabilities: { session: {} },
    }))
    .onRequest("session/new", () => ({ sessionId: "s1" }))
    .onRequest("terminal/cancel", ({ params }) =>
      publisher.cancel(params.sessionId, params.terminalId),
    );
  const server: Server = createServer((socket) => {
    const connection = agentApp.connect(streamOf(socket));
    publisher = new TerminalPublisher(local.manager, {
      send: async (sessionId, update) => {
        await sendGate; // a client that does not read yet
        await connection.client.notify("session/update", { sessionId, update });
      },
      ...publisherOptions,
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const socket = connect(socketPath);
  const updates: SessionUpdate[] = [];
  const clientApp = client().onNotification("session/update", ({ params }) => {
    updates.push(params.update);
  });
  const connection = clientApp.connect(streamOf(socket));
  const agentSide = connection.agent;
  const init = await agentSide.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    info: { name: "publish-test-client", version: "0" },
  });
  expect(init.protocolVersion).toBe(2);
  const { sessionId } = await agentSide.request("session/new", { cwd: dir });
  const made: Rig = {
    local,
    publisher,
    agentSide,
    sessionId,
    updates,
    of: (terminalId) =>
      updates.filter(
        (u) => "terminalId" in u && (u as { terminalId: string }).terminalId === terminalId,
      ),
    async dispose() {
      publisher.dispose();
      connection.close();
      socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      await local.dispose();
    },
  };
  rigs.push(made);
  return made;
}

const decode = (data: string): Buffer => Buffer.from(data, "base64");
const isChunk = (u: SessionUpdate): u is ChunkOf => u.sessionUpdate === "terminal_output_chunk";
const isTerminalUpdate = (u: SessionUpdate): u is TerminalUpdateOf =>
  u.sessionUpdate === "terminal_update";
const chunksOf = (updates: SessionUpdate[]): ChunkOf[] =>
  updates.filter((u): u is ChunkOf => u.sessionUpdate === "terminal_output_chunk");
const terminalUpdatesOf = (updates: SessionUpdate[]): TerminalUpdateOf[] =>
  updates.filter((u): u is TerminalUpdateOf => u.sessionUpdate === "terminal_update");

describe("TerminalPublisher: runs as ACP v2 agent-owned terminals over a real ndJson socket", () => {
  it("announces a run with its command and cwd and advertises cancel, streams its bytes as chunks, then sets exitStatus once and stops advertising cancel", async () => {
    const r = await rig();
    const run = await r.local.manager.start({
      sessionId: r.sessionId,
      command: `printf 'h\\303\\251llo\\n'; echo ${MARKER}-a >/dev/null`,
      cwd: dir,
    });
    await r.local.manager.wait(run.id);
    await r.publisher.flushed();
    await until(
      () => terminalUpdatesOf(r.of(run.id)).some((u) => u.exitStatus),
      "the exitStatus update",
    );
    const seen = r.of(run.id);
    const [first] = seen;
    // "terminal_update": the first one announces the terminal: command, cwd, capabilities.cancel.
    expect(first).toMatchObject({
      sessionUpdate: "terminal_update",
      terminalId: run.id,
      command: run.command,
      cwd: dir,
      capabilities: { cancel: {} },
    });
    // "terminal_output_chunk": independently base64-encoded bytes appended to the output.
    const bytes = Buffer.concat(chunksOf(seen).map((chunk) => decode(chunk.data)));
    expect(bytes.toString("utf8")).toBe("héllo\n");
    // exitStatus: a concrete object marks the terminal exited; sent exactly once.
    const exits = terminalUpdatesOf(seen).filter((u) => u.exitStatus);
    expect(exits).toHaveLength(1);
    expect(exits[0]!.exitStatus).toEqual({ exitCode: 0, signal: null });
    // Agents SHOULD stop advertising cancel once the terminal reports exitStatus: same update.
    expect(exits[0]!.capabilities).toEqual({});
    // Nothing for this terminal after its exit.
    expect(seen.at(-1)).toBe(exits[0]);
  });

  it("announces a PTY run with its size (the cells the command runs with), and a pipe run with none", async () => {
    const r = await rig();
    const ptyRun = await r.local.manager.start({
      sessionId: r.sessionId,
      command: `stty size; echo ${MARKER}-g >/dev/null`,
      pty: true,
    });
    const pipeRun = await r.local.manager.start({ sessionId: r.sessionId, command: "true" });
    await r.local.manager.wait(ptyRun.id);
    await r.local.manager.wait(pipeRun.id);
    await r.publisher.flushed();
    await until(
      () => terminalUpdatesOf(r.of(ptyRun.id)).some((u) => u.exitStatus),
      "the PTY run's exit",
    );
    expect(terminalUpdatesOf(r.of(ptyRun.id))[0]!.size).toEqual({ cols: 80, rows: 24 });
    // What the command itself saw: rows and columns as stty prints them.
    expect(
      Buffer.concat(chunksOf(r.of(ptyRun.id)).map((c) => decode(c.data))).toString(),
    ).toContain("24 80");
    await until(() => r.of(pipeRun.id).length > 0, "the pipe run's announcement");
    expect(terminalUpdatesOf(r.of(pipeRun.id))[0]!).not.toHaveProperty("size");
  });

  it("announces a PTY run at the size it was started with, and publishes each resize as a terminal_update with the new size, which the command sees", async () => {
    const r = await rig();
    const run = await r.local.manager.start({
      sessionId: r.sessionId,
      command: `stty size; read _; stty size; echo ${MARKER}-r >/dev/null`,
      pty: { cols: 100, rows: 30 },
    });
    await until(
      () => Buffer.concat(chunksOf(r.of(run.id)).map((c) => decode(c.data))).includes("30 100"),
      "the first stty line",
    );
    expect(terminalUpdatesOf(r.of(run.id))[0]!.size).toEqual({ cols: 100, rows: 30 });
    await r.local.manager.resize(run.id, 120, 40, { sessionId: r.sessionId });
    await until(
      () => terminalUpdatesOf(r.of(run.id)).some((u) => u.size?.cols === 120),
      "the resize's terminal_update",
    );
    expect(
      terminalUpdatesOf(r.of(run.id))
        .filter((u) => u.size)
        .map((u) => u.size),
    ).toEqual([
      { cols: 100, rows: 30 },
      { cols: 120, rows: 40 },
    ]);
    await r.local.manager.write(run.id, "\n", { sessionId: r.sessionId });
    await r.local.manager.wait(run.id);
    await r.publisher.flushed();
    await until(() => terminalUpdatesOf(r.of(run.id)).some((u) => u.exitStatus), "the exit");
    expect(Buffer.concat(chunksOf(r.of(run.id)).map((c) => decode(c.data))).toString()).toContain(
      "40 120",
    );
  });

  it("says in the terminal's _meta when its command waits for input (after the prompt's chunk), and that it stopped once answered; a replay carries the state", async () => {
    const r = await rig();
    const run = await r.local.manager.start({
      sessionId: r.sessionId,
      command: `python3 -c "print('hello', input('name? '))"; echo ${MARKER}-i >/dev/null`,
      pty: true,
    });
    const meta = (u: SessionUpdate) =>
      ((u as TerminalUpdateOf)._meta as Record<string, { inputRequired: unknown }> | undefined)?.[
        "acp-process"
      ];
    await until(
      () => terminalUpdatesOf(r.of(run.id)).some((u) => meta(u)?.inputRequired),
      "a terminal_update saying the command waits for input",
    );
    const updates = r.of(run.id);
    const waitingAt = updates.findIndex(
      (u) => u.sessionUpdate === "terminal_update" && meta(u)?.inputRequired,
    );
    // The prompt went out first, as a chunk.
    expect(
      Buffer.concat(chunksOf(updates.slice(0, waitingAt)).map((c) => decode(c.data))).toString(),
    ).toContain("name? ");
    expect(meta(updates[waitingAt] as TerminalUpdateOf)!.inputRequired).toMatchObject({
      prompt: "name? ",
      detectedBy: "proc",
    });
    await r.publisher.replay(r.sessionId);
    await until(
      () => terminalUpdatesOf(r.of(run.id)).filter((u) => u.output).length > 0,
      "the replayed state",
    );
    expect(
      meta(terminalUpdatesOf(r.of(run.id)).find((u) => u.output)!)!.inputRequired,
    ).toMatchObject({
      prompt: "name? ",
    });
    await r.local.manager.write(run.id, "bob\r");
    await r.local.manager.wait(run.id);
    await until(() => terminalUpdatesOf(r.of(run.id)).some((u) => u.exitStatus), "the exit");
    const after = terminalUpdatesOf(r.of(run.id)).slice(
      terminalUpdatesOf(r.of(run.id)).findIndex((u) => u.output) + 1,
    );
    expect(after.some((u) => u._meta !== undefined && meta(u)!.inputRequired === null)).toBe(true);
  });

  it("never sends a chunk over maxChunkBytes, cuts chunks on UTF-8 boundaries, and the chunks add up to the output", async () => {
    const r = await rig({ maxChunkBytes: 1000 });
    // 60,000 bytes of two-byte characters: every cut has a chance to fall inside one.
    const run = await r.local.manager.start({
      sessionId: r.sessionId,
      command: process.execPath,
      args: ["-e", `process.stdout.write("é".repeat(30000)); "${MARKER}-b"`],
    });
    await r.local.manager.wait(run.id);
    await r.publisher.flushed();
    await until(() => terminalUpdatesOf(r.of(run.id)).some((u) => u.exitStatus), "the exit");
    const chunks = chunksOf(r.of(run.id)).map((chunk) => decode(chunk.data));
    expect(chunks.length).toBeGreaterThanOrEqual(60);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(1000);
      expect(chunk.toString("utf8")).not.toContain("\uFFFD");
    }
    expect(Buffer.concat(chunks).toString("utf8")).toBe("é".repeat(30000));
  });

  it("keeps what waits for a slow client bounded: past maxBacklogBytes the pending chunks give way to one output snapshot, and applying the updates in order still gives the whole output", async () => {
    let open!: () => void;
    const r = await rig({
      maxChunkBytes: 1024,
      maxBacklogBytes: 8192,
      snapshotBytes: 1024 * 1024,
      sendGate: new Promise<void>((resolve) => (open = resolve)),
    });
    const run = await r.local.manager.start({
      sessionId: r.sessionId,
      command: process.execPath,
      args: [
        "-e",
        `for (let i = 0; i < 2000; i++) process.stdout.write(String(i).padStart(99, ".") + "\\n"); "${MARKER}-f"`,
      ],
    });
    await r.local.manager.wait(run.id);
    open();
    await r.publisher.flushed();
    await until(() => terminalUpdatesOf(r.of(run.id)).some((u) => u.exitStatus), "the exit");
    // "output": an authoritative replacement; "terminal_output_chunk": appended bytes.
    let screen: Buffer = Buffer.alloc(0);
    let chunkBytes = 0;
    for (const update of r.of(run.id)) {
      if (isChunk(update)) {
        chunkBytes += decode(update.data).length;
        screen = Buffer.concat([screen, decode(update.data)]);
      } else if (isTerminalUpdate(update) && update.output) {
        screen = decode(update.output.data);
      }
    }
    const expected = Array.from(
      { length: 2000 },
      (_, i) => `${String(i).padStart(99, ".")}\n`,
    ).join("");
    expect(terminalUpdatesOf(r.of(run.id)).some((u) => u.output)).toBe(true);
    expect(chunkBytes).toBeLessThan(expected.length / 2);
    expect(screen.toString("utf8")).toBe(expected);
  });

  it("keeps replays within maxBacklogBytes for a client that does not read: 50 concurrent replays of 20 terminals with 64 KiB snapshots hold one backlog's worth, not 50 copies, and all complete once it reads", async () => {
    let open!: () => void;
    const r = await rig({
      maxBacklogBytes: 1024 * 1024,
      snapshotBytes: 64 * 1024,
      sendGate: new Promise<void>((resolve) => (open = resolve)),
    });
    const runs = [];
    for (let i = 0; i < 20; i++) {
      runs.push(
        await r.local.manager.start({
          sessionId: r.sessionId,
          command: process.execPath,
          args: ["-e", `process.stdout.write("r".repeat(70000)); "${MARKER}-replay"`],
        }),
      );
    }
    for (const run of runs) {
      await r.local.manager.wait(run.id);
    }
    const before = process.memoryUsage().heapUsed;
    const replays = Array.from({ length: 50 }, () => r.publisher.replay(r.sessionId));
    await new Promise((resolve) => setImmediate(resolve));
    const heldBytes = process.memoryUsage().heapUsed - before;
    // Unbounded, this is 50 x 20 snapshots of 87 KiB (base64): about 87 MB.
    expect(heldBytes).toBeLessThan(30 * 1024 * 1024);
    open();
    expect(await withDeadline(Promise.all(replays), 30_000, "the replays")).toEqual(
      Array.from({ length: 50 }, () => 20),
    );
    console.log(`50 replays of 20 terminals with a closed gate: heap +${heldBytes} bytes`);
  }, 60_000);

  it("terminal/cancel is answered once accepted, kills the run's process group, and the terminal_update with exitStatus confirms it", async () => {
    const r = await rig();
    const run = await r.local.manager.start({
      sessionId: r.sessionId,
      command: `echo ready; sleep 30; echo ${MARKER}-c`,
    });
    await until(() => chunksOf(r.of(run.id)).length > 0, "the first chunk");
    expect(processesWith(`${MARKER}-c`).length).toBeGreaterThan(0);
    const started = performance.now();
    await expect(
      r.agentSide.request("terminal/cancel", { sessionId: r.sessionId, terminalId: run.id }),
    ).resolves.toEqual({});
    const answeredMs = performance.now() - started;
    const exit = await until(
      () => terminalUpdatesOf(r.of(run.id)).find((u) => u.exitStatus),
      "the exitStatus after the cancel",
    );
    expect(exit.exitStatus?.signal).toBe("SIGTERM");
    expect(exit.capabilities).toEqual({});
    expect(r.local.manager.get(run.id).status).toBe("killed");
    await until(() => processesWith(`${MARKER}-c`).length === 0, "no process left");
    expect(answeredMs).toBeLessThan(5000);
  });

  it("terminal/cancel answers -32602 for an unknown terminal, another session's terminal, and one that has exited", async () => {
    const r = await rig();
    const cancel = (terminalId: string, sessionId = r.sessionId) =>
      r.agentSide.request("terminal/cancel", { sessionId, terminalId });
    await expect(cancel("no-such-terminal")).rejects.toMatchObject({ code: -32602 });
    const run = await r.local.manager.start({ sessionId: r.sessionId, command: "true" });
    await r.local.manager.wait(run.id);
    await expect(cancel(run.id, "another-session")).rejects.toMatchObject({ code: -32602 });
    await expect(cancel(run.id)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("already exited"),
    });
  });

  it("terminal/cancel for a 1 MiB unknown id answers -32602 in under 1 KiB: the id is quoted cut, not echoed whole", async () => {
    const r = await rig();
    const error: unknown = await r.agentSide
      .request("terminal/cancel", { sessionId: r.sessionId, terminalId: "i".repeat(1024 * 1024) })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: -32602 });
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    expect(Buffer.byteLength(JSON.stringify({ code, message, data }))).toBeLessThan(1024);
  });

  it("replay sends each terminal's whole state with an output snapshot bounded by snapshotBytes (the tail, cut on a character boundary)", async () => {
    const r = await rig({ snapshotBytes: 4096 });
    const run = await r.local.manager.start({
      sessionId: r.sessionId,
      command: process.execPath,
      args: ["-e", `for (let i = 0; i < 5000; i++) console.log("line " + i + " é"); "${MARKER}-d"`],
    });
    await r.local.manager.wait(run.id);
    await r.publisher.flushed();
    await until(() => terminalUpdatesOf(r.of(run.id)).some((u) => u.exitStatus), "the exit");
    const before = r.updates.length;
    expect(await r.publisher.replay(r.sessionId)).toBe(1);
    const replayed = await until(
      () => terminalUpdatesOf(r.updates.slice(before)).find((u) => u.terminalId === run.id),
      "the replayed terminal_update",
    );
    const snapshot = decode(replayed.output!.data);
    expect(snapshot.length).toBeLessThanOrEqual(4096);
    expect(snapshot.length).toBeGreaterThan(4096 - 4);
    expect(snapshot.toString("utf8")).not.toContain("\uFFFD");
    expect(snapshot.toString("utf8").endsWith("line 4999 é\n")).toBe(true);
    expect(replayed).toMatchObject({
      command: expect.stringMatching(/^\S*node -e for/),
      exitStatus: { exitCode: 0, signal: null },
      capabilities: {},
    });
  });

  it("lists live background runs' terminals as background work, and drops them after their exit", async () => {
    const r = await rig();
    const run = await r.local.manager.start({
      sessionId: r.sessionId,
      command: `sleep 30; echo ${MARKER}-e`,
      labels: { background: "true" },
    });
    const foreground = await r.local.manager.start({
      sessionId: r.sessionId,
      command: `sleep 30; echo ${MARKER}-e`,
    });
    await r.publisher.announce(run);
    expect(r.publisher.background(r.sessionId)).toEqual([{ type: "terminal", terminalId: run.id }]);
    await r.local.manager.kill(run.id);
    await r.local.manager.kill(foreground.id);
    await until(() => r.publisher.background(r.sessionId).length === 0, "an empty list");
  });

  it("does not publish runs the publishes filter leaves out", async () => {
    const r = await rig({ publishes: (run) => run.labels["v2"] === "yes" });
    const hidden = await r.local.manager.start({ sessionId: r.sessionId, command: "echo hidden" });
    const shown = await r.local.manager.start({
      sessionId: r.sessionId,
      command: "echo shown",
      labels: { v2: "yes" },
    });
    await r.local.manager.wait(hidden.id);
    await r.local.manager.wait(shown.id);
    await r.publisher.flushed();
    await until(() => terminalUpdatesOf(r.of(shown.id)).some((u) => u.exitStatus), "shown's exit");
    expect(r.of(hidden.id)).toEqual([]);
  });
});
