/**
 * demo-agent under the ACP v2 draft, driven by a client written with the SDK's v2 `client()` app
 * over real stdio: version negotiation through agentProtocolRouter, the tour's commands as
 * agent-owned terminals (terminal_update, terminal_output_chunk), exitStatus once, cancel
 * advertised only while running, terminal/cancel, replay on session/resume, and v1 unchanged.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { client as clientV1, ndJsonStream as ndJsonStreamV1 } from "@agentclientprotocol/sdk";
import type { SessionUpdate } from "@agentclientprotocol/sdk/experimental/v2";
import { bindTerminalHost, TerminalHost } from "acp-terminal";
import { afterEach, describe, expect, it } from "vitest";
import { startDemoClient, type DemoClient } from "./fixtures/demo-client.js";
import {
  startDemoClientV2,
  type DemoClientV2,
  type StateUpdate,
} from "./fixtures/demo-client-v2.js";
import { DEMO_AGENT, MARK_VARIABLE, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { countedStdio } from "./fixtures/wire-counter.js";
import { processesWith } from "./support/processes.js";
import { until, withDeadline } from "./support/until.js";

type TerminalUpdate = Extract<SessionUpdate, { sessionUpdate: "terminal_update" }>;
type Chunk = Extract<SessionUpdate, { sessionUpdate: "terminal_output_chunk" }>;
type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;

let v2: DemoClientV2 | undefined;
let v1: DemoClient | undefined;
let mark = "";

afterEach(async () => {
  await v2?.stop();
  await v1?.stop();
  v2 = v1 = undefined;
  // Everything the agent started carries the mark; none of it may outlive the agent.
  await untilNoneMarked(mark);
});

async function startV2(): Promise<DemoClientV2> {
  mark = newMark();
  v2 = await startDemoClientV2(mark);
  return v2;
}

const isTerminalUpdate = (u: SessionUpdate): u is TerminalUpdate =>
  u.sessionUpdate === "terminal_update";
const isChunk = (u: SessionUpdate): u is Chunk => u.sessionUpdate === "terminal_output_chunk";
const isState = (u: SessionUpdate): u is StateUpdate => u.sessionUpdate === "state_update";
const terminalIdOf = (u: SessionUpdate): string | undefined =>
  isTerminalUpdate(u) || isChunk(u) ? u.terminalId : undefined;
const outputOf = (updates: SessionUpdate[], terminalId: string): string =>
  Buffer.concat(
    updates
      .filter(isChunk)
      .flatMap((u) => (u.terminalId === terminalId ? [Buffer.from(u.data, "base64")] : [])),
  ).toString("utf8");
/** Terminal ids referenced by tool calls (`{type: "terminal", terminalId}` content), with the index of the first reference. */
function referencedTerminals(updates: SessionUpdate[]): Map<string, number> {
  const firstReference = new Map<string, number>();
  updates.forEach((u, index) => {
    if (u.sessionUpdate !== "tool_call_update") {
      return;
    }
    for (const content of (u as ToolCallUpdate).content ?? []) {
      const terminalId =
        content.type === "terminal" ? (content as { terminalId: string }).terminalId : undefined;
      if (terminalId !== undefined && !firstReference.has(terminalId)) {
        firstReference.set(terminalId, index);
      }
    }
  });
  return firstReference;
}
const factsOf = (updates: SessionUpdate[]): Record<string, unknown>[] =>
  updates.flatMap((u) => {
    const meta = (u._meta as Record<string, Record<string, unknown>> | null | undefined)?.[
      "demo-agent"
    ];
    return u.sessionUpdate === "agent_message_chunk" && meta ? [meta] : [];
  });

describe("demo-agent over ACP v2 (agentProtocolRouter)", () => {
  it("negotiates v2, and the tour's commands show as announced agent-owned terminals whose output arrives as chunks, each with exitStatus exactly once and cancel advertised only before it", async () => {
    const client = await startV2();
    // initialize: the highest version at or below the requested one, and both sides speak v2.
    expect(client.initialized.protocolVersion).toBe(2);
    expect(await client.prompt("demo")).toBe("end_turn");
    const updates = client.updates;
    expect(factsOf(updates)[0]).toMatchObject({
      event: "mode",
      provider: "local",
      protocolVersion: 2,
    });
    expect(factsOf(updates).some((f) => f.event === "tour_complete")).toBe(true);

    const referenced = referencedTerminals(updates);
    // Every ProcessManager run of the tour (the flood step drives the provider itself, unpublished).
    expect(referenced.size).toBeGreaterThanOrEqual(7);
    const announced = new Set(updates.filter(isTerminalUpdate).map((u) => u.terminalId));
    for (const [terminalId, firstReference] of referenced) {
      const own = updates
        .map((u, index) => ({ u, index }))
        .filter(({ u }) => terminalIdOf(u) === terminalId);
      // Announced with its command, and cancel offered, before any tool call references it.
      expect(own[0]!.u).toMatchObject({
        sessionUpdate: "terminal_update",
        command: expect.any(String),
        capabilities: { cancel: {} },
      });
      expect(own[0]!.index).toBeLessThan(firstReference);
      // exitStatus is set exactly once ...
      const exits = own.filter(({ u }) => isTerminalUpdate(u) && u.exitStatus);
      expect(exits, `exitStatus updates of ${terminalId}`).toHaveLength(1);
      // ... with cancel no longer advertised, and nothing for the terminal after it.
      expect((exits[0]!.u as TerminalUpdate).capabilities).toEqual({});
      expect(own.at(-1)!.index).toBe(exits[0]!.index);
    }
    expect([...referenced.keys()].every((id) => announced.has(id))).toBe(true);
    const all = [...referenced.keys()].map((id) => outputOf(updates, id)).join("");
    expect(all).toContain("hello from the demo tour");
    // The background build: listed as background work while it ran, not after.
    const states = updates.filter(isState);
    expect(states.some((s) => ((s.background ?? []) as unknown[]).length > 0)).toBe(true);
    expect(states.at(-1)).toMatchObject({ state: "idle", stopReason: "end_turn", background: [] });
  });

  it("terminal/cancel is accepted for a running terminal, kills its process, and exitStatus follows; unknown and exited terminals get -32602", async () => {
    const client = await startV2();
    const marker = `cancel-${randomUUID()}`;
    expect(await client.prompt(`bg sleep 300; echo ${marker}`)).toBe("end_turn");
    const announced = await client.waitFor(
      (u): u is TerminalUpdate => isTerminalUpdate(u) && (u.command ?? "").includes(marker),
      "the bg run's terminal",
    );
    const terminalId = announced.terminalId;
    expect(announced.capabilities).toEqual({ cancel: {} });
    expect(processesWith(marker).length).toBeGreaterThan(0);
    // Background work: the idle state after the turn lists the running terminal.
    const idle = client.updates.filter(isState).at(-1)!;
    expect(idle.background).toEqual([{ type: "terminal", terminalId }]);

    const started = performance.now();
    await expect(
      client.agent.request("terminal/cancel", { sessionId: client.sessionId, terminalId }),
    ).resolves.toEqual({});
    const acceptedMs = performance.now() - started;
    const exit = await client.waitFor(
      (u): u is TerminalUpdate =>
        isTerminalUpdate(u) && u.terminalId === terminalId && !!u.exitStatus,
      "the exitStatus confirming the cancel",
    );
    const exitedMs = performance.now() - started;
    expect(exit.exitStatus).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(exit.capabilities).toEqual({});
    await until(() => processesWith(marker).length === 0, { message: `no process with ${marker}` });
    // A background terminal that exited leaves the list, in a new snapshot after its exitStatus.
    const after = await client.waitFor(
      (u): u is StateUpdate =>
        isState(u) && client.updates.indexOf(u) > client.updates.indexOf(exit),
      "a state_update after the exit",
    );
    expect(after.background).toEqual([]);
    console.log(
      `terminal/cancel round trip: accepted in ${acceptedMs.toFixed(1)} ms, exitStatus after ${exitedMs.toFixed(1)} ms`,
    );

    const cancel = (id: string) =>
      client.agent.request("terminal/cancel", { sessionId: client.sessionId, terminalId: id });
    await expect(cancel("no-such-terminal")).rejects.toMatchObject({ code: -32602 });
    await expect(cancel(terminalId)).rejects.toMatchObject({ code: -32602 });
  });

  it("a 1 MiB unknown session id in session/resume, session/prompt and terminal/cancel is answered -32002 in under 1 KiB each: the id is not echoed whole", async () => {
    const client = await startV2();
    const sessionId = "s".repeat(1024 * 1024);
    const asks = [
      client.agent.request("session/resume", { sessionId, cwd: "/" }),
      client.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "help" }],
      }),
      client.agent.request("terminal/cancel", { sessionId, terminalId: "t" }),
    ];
    for (const ask of asks) {
      const error: unknown = await ask.catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: -32002 });
      const { code, message, data } = error as { code: number; message: string; data?: unknown };
      expect(Buffer.byteLength(JSON.stringify({ code, message, data }))).toBeLessThan(1024);
    }
  });

  it("session/resume with replayFrom start replays each terminal whole: command, exitStatus, and an output snapshot bounded to its newest 64 KiB", async () => {
    const client = await startV2();
    expect(await client.prompt("run seq 1 60000")).toBe("end_turn");
    const terminalId = [...referencedTerminals(client.updates).keys()][0]!;
    const live = outputOf(client.updates, terminalId);
    expect(live.endsWith("59999\n60000\n")).toBe(true);
    const from = client.updates.length;
    await client.agent.request("session/resume", {
      sessionId: client.sessionId,
      cwd: process.cwd(),
      replayFrom: { type: "start" },
    });
    // The client's handler may run after the answer resolves: wait for the state snapshot.
    await until(() => client.updates.slice(from).some(isState), {
      message: "the state_update of the resume",
    });
    const replay = client.updates.slice(from);
    const replayed = replay.filter(isTerminalUpdate).find((u) => u.terminalId === terminalId)!;
    const snapshot = Buffer.from(replayed.output!.data, "base64");
    expect(live.length).toBeGreaterThan(64 * 1024);
    expect(snapshot.length).toBeLessThanOrEqual(64 * 1024);
    expect(live.endsWith(snapshot.toString("utf8"))).toBe(true);
    expect(replayed).toMatchObject({
      command: "seq 1 60000",
      exitStatus: { exitCode: 0, signal: null },
      capabilities: {},
    });
    // Resume sends a current-state snapshot after the replay, before its answer.
    expect(replay.findIndex(isState)).toBeGreaterThan(replay.indexOf(replayed));
    console.log(
      `replay: ${live.length} bytes of output, snapshot ${snapshot.length} bytes (bound 65536)`,
    );
  });

  it("holds a prompt sent during a turn; session/cancel ends the turn as cancelled, kills its run, and answers the held prompt -32800", async () => {
    const client = await startV2();
    const marker = `held-${randomUUID()}`;
    const sessionId = client.sessionId;
    const first = client.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: `run sleep 300; echo ${marker}` }],
    });
    await first; // inserted: its turn runs
    await until(() => processesWith(marker).length > 0, { message: "the first turn's command" });
    const held = client.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "run echo never" }],
    });
    const heldOutcome = held.then(
      () => "inserted",
      (error: { code?: number }) => error.code,
    );
    await client.agent.notify("session/cancel", { sessionId });
    expect(await withDeadline(heldOutcome, 10_000, "the held prompt's answer")).toBe(-32800);
    await client.waitFor(
      (u): u is StateUpdate => isState(u) && "stopReason" in u && u.stopReason === "cancelled",
      "the idle state_update with stopReason cancelled",
    );
    await until(() => processesWith(marker).length === 0, { message: `no process with ${marker}` });
    expect(
      client.updates.some((u) => isTerminalUpdate(u) && (u.command ?? "").includes("never")),
    ).toBe(false);
  });

  it("holds at most 16 prompts behind a running turn: the 17th is refused at once with -32600 saying so, and session/cancel still answers the 16 held -32800", async () => {
    const client = await startV2();
    const marker = `held-cap-${randomUUID()}`;
    const sessionId = client.sessionId;
    await client.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: `run sleep 300; echo ${marker}` }],
    });
    await until(() => processesWith(marker).length > 0, { message: "the first turn's command" });
    const outcomes = Array.from({ length: 17 }, () =>
      client.agent
        .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "help" }] })
        .then(
          () => "inserted",
          (error: { code?: number; message?: string }) => `${error.code} ${error.message}`,
        ),
    );
    expect(await withDeadline(outcomes[16]!, 5_000, "the 17th prompt's answer")).toMatch(
      /^-32600 .*16 prompts are already held behind the running turn/,
    );
    await client.agent.notify("session/cancel", { sessionId });
    const held = await withDeadline(Promise.all(outcomes.slice(0, 16)), 10_000, "the held answers");
    expect(held.every((outcome) => outcome.startsWith("-32800"))).toBe(true);
    await until(() => processesWith(marker).length === 0, { message: `no process with ${marker}` });
  });

  it("session/close stops the session's background runs (their exitStatus goes out first) and forgets the session", async () => {
    const client = await startV2();
    const marker = `close-${randomUUID()}`;
    expect(await client.prompt(`bg sleep 300; echo ${marker}`)).toBe("end_turn");
    const announced = await client.waitFor(
      (u): u is TerminalUpdate => isTerminalUpdate(u) && (u.command ?? "").includes(marker),
      "the bg run's terminal",
    );
    await expect(
      client.agent.request("session/close", { sessionId: client.sessionId }),
    ).resolves.toEqual({});
    expect(processesWith(marker)).toEqual([]);
    await client.waitFor(
      (u): u is TerminalUpdate =>
        isTerminalUpdate(u) && u.terminalId === announced.terminalId && !!u.exitStatus,
      "the exitStatus of the closed session's run",
    );
    await expect(
      client.agent.request("session/prompt", {
        sessionId: client.sessionId,
        prompt: [{ type: "text", text: "list" }],
      }),
    ).rejects.toMatchObject({ code: -32002 }); // the session does not exist any more
  });

  it("still speaks v1 to a v1 client: tool_call, stopReason in the prompt answer, no v2 terminal updates", async () => {
    mark = newMark();
    v1 = await startDemoClient({ fs: { readTextFile: false, writeTextFile: false } }, mark);
    expect(await v1.prompt("run echo still-v1")).toBe("end_turn");
    expect(v1.updates.some((u) => u.sessionUpdate === "tool_call")).toBe(true);
    expect(
      v1.updates.some(
        (u) => u.sessionUpdate.startsWith("terminal_") || u.sessionUpdate === "state_update",
      ),
    ).toBe(false);
  });
});

describe("figures: the wire per tour", () => {
  it("counts messages and bytes both ways for one tour under v1 (client terminals) and v2 (published local runs)", async () => {
    const client = await startV2();
    expect(await client.prompt("demo")).toBe("end_turn");
    const v2Figures = {
      fromAgent: { ...client.wire.fromAgent },
      toAgent: { ...client.wire.toAgent },
    };
    const byKind: Record<string, { updates: number; bytes: number }> = {};
    for (const update of client.updates) {
      const kind = (byKind[update.sessionUpdate] ??= { updates: 0, bytes: 0 });
      kind.updates++;
      kind.bytes += JSON.stringify(update).length;
    }
    console.log(`v2 tour session updates by kind: ${JSON.stringify(byKind)}`);

    // v1, as the main job runs it: the client hosts the terminals.
    const child = spawn(process.execPath, [DEMO_AGENT], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, [MARK_VARIABLE]: mark },
    });
    const exited = once(child, "exit");
    const host = new TerminalHost({
      env: (base: NodeJS.ProcessEnv) => ({ ...base, [MARK_VARIABLE]: mark }),
    });
    const app = clientV1({ name: "figures-v1" }).onNotification("session/update", () => {});
    bindTerminalHost(app, host);
    const wire = countedStdio(child.stdin, child.stdout);
    const connection = app.connect(ndJsonStreamV1(wire.writable, wire.readable));
    try {
      await connection.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { terminal: true },
        clientInfo: { name: "figures-v1", version: "1" },
      });
      const { sessionId } = await connection.agent.request("session/new", {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const answer = await withDeadline(
        connection.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "demo" }],
        }),
        30_000,
        "the v1 tour",
      );
      expect(answer.stopReason).toBe("end_turn");
    } finally {
      connection.close();
      child.stdin.end();
      await withDeadline(exited, 10_000, "the v1 agent to exit");
      await host.dispose();
    }
    const v1Figures = { fromAgent: wire.fromAgent, toAgent: wire.toAgent };
    console.log(
      `tour wire figures: v1 ${JSON.stringify(v1Figures)}; v2 ${JSON.stringify(v2Figures)}`,
    );
    expect(v2Figures.fromAgent.messages).toBeGreaterThan(0);
    expect(v1Figures.fromAgent.messages).toBeGreaterThan(0);
  });
});
