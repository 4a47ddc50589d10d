/**
 * The conformance agent's ACP v2 battery over real stdio, driven by test clients written with the
 * SDK's v2 `client()` app: a well-behaved one passes every check, one that never cancels leaves
 * the cancel checks "not exercised", one that cancels every terminal and one that closes on an
 * unknown session update fail the right checks. A v1 client is still routed to the v1 battery.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import * as v1 from "@agentclientprotocol/sdk";
import { client, ndJsonStream, type ClientContext } from "@agentclientprotocol/sdk/experimental/v2";
import type { V2ConformanceReport } from "acp-terminal-conformance";
import { setTimeout as delay } from "node:timers/promises";
import { PING_METHOD } from "../packages/acp-terminal-conformance/src/v2/base/session.js";
import { until, withDeadline } from "./support/until.js";
import { CONFORMANCE_AGENT, killAllStarted, track } from "./fixtures/cli-process.js";

let dir: string | undefined;
afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  if (dir !== undefined) {
    await rm(dir, { recursive: true, force: true });
  }
  dir = undefined;
});

/** What the test client does with terminals. */
interface Behaviour {
  /**
   * What the client does when the battery asks for terminal/cancel (as a user pressing Ctrl-C):
   * `advertised` cancels the terminals whose latest terminal_update advertises cancel (what
   * acp-terminal run does); `everything` cancels every terminal it has seen (the bug: ignoring
   * capabilities); `never` does nothing.
   */
  cancel: "advertised" | "everything" | "never";
  /** After its terminal/cancel requests, cancels the turn too (acp-terminal run's Ctrl-C). */
  cancelTurn?: boolean;
  /** Closes the connection (and the agent's stdin) on a session update it does not know. */
  closeOnUnknownUpdate?: boolean;
  /** With its cancels, sends this many terminal/cancel for invented ids of `chars` characters. */
  invented?: { count: number; chars: number };
}

type Update = { sessionUpdate: string; [key: string]: unknown };

function spawnAgent(...args: string[]) {
  const child = spawn(process.execPath, [CONFORMANCE_AGENT, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  track(child.pid!);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, exited };
}

/** Runs the v2 battery with a v2 client acting as `behaviour`; returns what it saw and the report. */
async function runV2Battery(behaviour: Behaviour, cancelWindowMs = 10_000) {
  dir = await mkdtemp(path.join(tmpdir(), "conformance-v2-"));
  const report = path.join(dir, "report.json");
  const { child, exited } = spawnAgent("--report", report, "--cancel-window", `${cancelWindowMs}`);
  const updates: Update[] = [];
  const cancelAnswers: { terminalId: string; answer: string; bytes?: number }[] = [];
  /** Each terminal's cancel capability, applied as the upserts arrive. */
  const advertising = new Map<string, boolean>();
  let sessionId = "";
  let closedByClient = false;
  const app = client({ name: "conformance-v2-test-client" });
  const cancel = (agent: ClientContext, terminalId: string) => {
    agent.request("terminal/cancel", { sessionId, terminalId }).then(
      () => cancelAnswers.push({ terminalId, answer: "ok" }),
      (error: { code?: number; message?: string; data?: unknown }) =>
        cancelAnswers.push({
          terminalId,
          answer: `${error.code}`,
          bytes: Buffer.byteLength(JSON.stringify([error.code, error.message, error.data])),
        }),
    );
  };
  app.onNotification("session/update", ({ params, agent }) => {
    const update = params.update as Update;
    updates.push(update);
    if (behaviour.closeOnUnknownUpdate === true && update.sessionUpdate.startsWith("_")) {
      closedByClient = true;
      connection.close();
      child.stdin.end();
      return;
    }
    if (update.sessionUpdate === "terminal_update") {
      const id = update.terminalId as string;
      const capabilities = update.capabilities as { cancel?: unknown } | null | undefined;
      if (capabilities !== undefined) {
        advertising.set(id, capabilities?.cancel != null);
      } else if (!advertising.has(id)) {
        advertising.set(id, false);
      }
    }
    const text = (update.content as { text?: string } | undefined)?.text ?? "";
    if (update.sessionUpdate !== "agent_message_chunk" || !text.includes("for terminal/cancel")) {
      return;
    }
    // The user presses Ctrl-C.
    for (const [id, cancellable] of advertising) {
      if (behaviour.cancel === "everything" || (behaviour.cancel === "advertised" && cancellable)) {
        cancel(agent, id);
      }
    }
    for (let i = 0; i < (behaviour.invented?.count ?? 0); i++) {
      cancel(agent, `${i}`.padEnd(behaviour.invented!.chars, "x"));
    }
    if (behaviour.cancelTurn === true) {
      void agent.notify("session/cancel", { sessionId });
    }
  });
  // Handlers first: the app dispatches only to handlers registered before it connects.
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
  );
  try {
    const init = await connection.agent.request("initialize", {
      protocolVersion: 2,
      info: { name: "test-client-v2", version: "2.0.0" },
      capabilities: {},
    });
    expect(init.protocolVersion).toBe(2);
    ({ sessionId } = await connection.agent.request("session/new", { cwd: process.cwd() }));
    const { messageId } = await connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "check" }],
    });
    expect(messageId).toEqual(expect.any(String));
    const idle = () =>
      updates.find((u) => u.sessionUpdate === "state_update" && u.state === "idle");
    await until(() => closedByClient || idle(), {
      timeoutMs: 60_000,
      message: "the battery's idle state_update, or the client closing",
    });
    // The agent writes its report once it notices the closed connection, then exits.
    if (closedByClient) {
      await withDeadline(exited, 10_000, "the agent to exit");
    }
    const text = updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => (u.content as { text: string }).text)
      .join("");
    return {
      updates,
      text,
      idle: idle(),
      cancelAnswers,
      closedByClient,
      report: JSON.parse(await readFile(report, "utf8")) as V2ConformanceReport,
    };
  } finally {
    connection.close();
    child.kill();
    await withDeadline(exited, 5_000, "the conformance agent to exit");
  }
}

const byStatus = (report: V2ConformanceReport, status: string) =>
  report.checks.filter((c) => c.status === status).map((c) => c.id);

describe("acp-terminal-conformance over ACP v2", () => {
  it("passes every v2 check for a client that cancels exactly the terminals advertising cancel", async () => {
    const { report, text, idle, updates, cancelAnswers } = await runV2Battery({
      cancel: "advertised",
    });
    expect(report.protocol).toBe("v2");
    expect(report.client).toEqual({ name: "test-client-v2", version: "2.0.0" });
    expect(report.checks.filter((c) => c.status !== "pass")).toEqual([]);
    expect(report.checks.map((c) => c.id)).toEqual([
      "chunks-around-snapshot",
      "chunk-before-terminal-update",
      "exit-status-repeated",
      "terminal-update-repeated",
      "large-snapshot",
      "background-listed",
      "unknown-session-update",
      "unknown-nested-variants",
      "unknown-meta",
      "cancel-round-trip",
      "cancel-refusal-tolerated",
      "cancel-only-when-advertised",
    ]);
    expect(report.summary).toEqual({
      passed: 12,
      failed: 0,
      notExercised: 0,
      skipped: 0,
      specFailures: 0,
    });
    // Both cancellable terminals were cancelled: one accepted, one refused as already exited.
    expect(report.cancels.map((c) => [c.terminalId, c.standing, c.answer.split(" ")[0]])).toEqual([
      ["v2-1-cancel-round-trip-cancel-me", "advertised", "accepted"],
      ["v2-1-cancel-round-trip-cancel-me-too", "advertised", "-32602"],
    ]);
    expect(cancelAnswers.map((a) => a.answer).sort()).toEqual(["-32602", "ok"]);
    // The window closed as soon as both were cancelled, not after 10 s.
    expect(report.durationMs).toBeLessThan(8_000);
    expect(idle).toMatchObject({ state: "idle", stopReason: "end_turn", background: [] });
    expect(text).toContain(
      "Terminal conformance (ACP v2): 12 passed, 0 failed, 0 not exercised, 0 skipped. The client conforms.",
    );
    for (const check of report.checks) {
      expect(text).toContain(`✓ PASS [${check.kind}] ${check.name}: `);
    }
    // Every terminal the battery published ends exited, none still advertising cancel.
    const last = new Map<string, { exited: boolean; cancel: boolean }>();
    for (const u of updates.filter((u) => u.sessionUpdate === "terminal_update")) {
      const prev = last.get(u.terminalId as string) ?? { exited: false, cancel: false };
      last.set(u.terminalId as string, {
        exited: u.exitStatus === undefined ? prev.exited : u.exitStatus !== null,
        cancel:
          u.capabilities === undefined
            ? prev.cancel
            : (u.capabilities as { cancel?: unknown } | null)?.cancel != null,
      });
    }
    expect(last.size).toBeGreaterThanOrEqual(12);
    expect([...last].filter(([, s]) => !s.exited || s.cancel)).toEqual([]);
  }, 60_000);

  it("still judges the cancels when the client cancels the turn right after them (Ctrl-C), and ends it cancelled", async () => {
    const { report, idle } = await runV2Battery({ cancel: "advertised", cancelTurn: true });
    expect(report.checks.filter((c) => c.status !== "pass")).toEqual([]);
    expect(report.cancels.map((c) => c.answer.split(" ")[0])).toEqual(["accepted", "-32602"]);
    expect(idle).toMatchObject({ state: "idle", stopReason: "cancelled" });
  }, 60_000);

  it("reports the cancel checks as not exercised, not passed, when the client never cancels", async () => {
    const { report, text, idle } = await runV2Battery({ cancel: "never" }, 300);
    expect(byStatus(report, "not-exercised")).toEqual([
      "cancel-round-trip",
      "cancel-refusal-tolerated",
      "cancel-only-when-advertised",
    ]);
    expect(byStatus(report, "fail")).toEqual([]);
    expect(report.summary).toMatchObject({ passed: 9, failed: 0, notExercised: 3 });
    expect(report.cancels).toEqual([]);
    expect(report.checks.find((c) => c.id === "cancel-round-trip")!.detail).toMatch(
      /^no terminal\/cancel arrived for the terminal advertising cancel within 300 ms/,
    );
    expect(text).toContain("○ NOT-EXERCISED [must] ");
    expect(text).toContain("No failures; some checks were not exercised.");
    expect(idle).toMatchObject({ stopReason: "end_turn" });
  }, 60_000);

  it("fails cancel-only-when-advertised, saying what to fix, for a client that cancels every terminal", async () => {
    const { report, idle } = await runV2Battery({ cancel: "everything" });
    expect(byStatus(report, "fail")).toEqual(["cancel-only-when-advertised"]);
    const standings = new Set(report.cancels.map((c) => c.standing));
    expect(standings).toContain("never-advertised");
    expect(standings).toContain("withdrawn");
    expect(standings).not.toContain("unknown");
    const detail = report.checks.find((c) => c.id === "cancel-only-when-advertised")!.detail;
    expect(detail).toMatch(
      /terminal\/cancel requests were for terminals that did not advertise cancel/,
    );
    expect(detail).toMatch(/never advertised capabilities\.cancel/);
    expect(detail).toMatch(
      /Fix: send terminal\/cancel only while the terminal's latest terminal_update capabilities include cancel/,
    );
    expect(
      report.cancels
        .filter((c) => c.standing !== "advertised")
        .every((c) => c.answer.startsWith("-32602")),
    ).toBe(true);
    expect(report.summary).toMatchObject({ failed: 1, specFailures: 1 });
    expect(idle).toMatchObject({ stopReason: "end_turn" });
  }, 60_000);

  it("keeps a client's invented 1 MiB terminal ids out of its answers and its report: each -32602 is under 1 KiB, the report under 1 MiB, the ids recorded cut", async () => {
    const chars = 1024 * 1024;
    const { report, cancelAnswers } = await runV2Battery({
      cancel: "advertised",
      invented: { count: 20, chars },
    });
    const invented = cancelAnswers.filter((a) => a.terminalId.length === chars);
    expect(invented).toHaveLength(20);
    expect(invented.every((a) => a.answer === "-32602" && a.bytes! < 1024)).toBe(true);
    const unknown = report.cancels.filter((c) => c.standing === "unknown");
    expect(unknown).toHaveLength(20);
    expect(unknown.every((c) => c.terminalId.length < 1024)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(report))).toBeLessThan(1024 * 1024);
    expect(byStatus(report, "fail")).toEqual(["cancel-only-when-advertised"]);
  }, 60_000);

  it("fails unknown-session-update, and writes the report, when the client closes on an unknown `_` update", async () => {
    const { report, closedByClient } = await runV2Battery({
      cancel: "advertised",
      closeOnUnknownUpdate: true,
    });
    expect(closedByClient).toBe(true);
    expect(byStatus(report, "pass")).toEqual([
      "chunks-around-snapshot",
      "chunk-before-terminal-update",
      "exit-status-repeated",
      "terminal-update-repeated",
      "large-snapshot",
      "background-listed",
    ]);
    expect(byStatus(report, "fail")).toEqual(["unknown-session-update"]);
    expect(report.checks.find((c) => c.id === "unknown-session-update")!.detail).toBe(
      "the client closed the connection after a `_acp-terminal/conformance-probe` session update: it must keep the connection open and ignore or generically display what it does not understand",
    );
    expect(byStatus(report, "skip")).toHaveLength(5);
  }, 60_000);

  it("answers a 1 MiB unknown session id (session/resume, session/prompt) and a terminal/cancel outside a battery in under 1 KiB each", async () => {
    const { child, exited } = spawnAgent();
    const connection = client({ name: "huge-ids" }).connect(
      ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
    );
    try {
      await connection.agent.request("initialize", {
        protocolVersion: 2,
        info: { name: "t", version: "1" },
        capabilities: {},
      });
      const { sessionId } = await connection.agent.request("session/new", { cwd: process.cwd() });
      const huge = "h".repeat(1024 * 1024);
      const asks = [
        connection.agent.request("session/resume", { sessionId: huge, cwd: process.cwd() }),
        connection.agent.request("session/prompt", {
          sessionId: huge,
          prompt: [{ type: "text", text: "check" }],
        }),
        connection.agent.request("terminal/cancel", { sessionId, terminalId: huge }),
      ];
      const errors: unknown[] = await Promise.all(
        asks.map((ask) => ask.catch((thrown: unknown) => thrown)),
      );
      for (const error of errors) {
        const { code, message, data } = error as { code: number; message: string; data?: unknown };
        expect(code).toBeLessThan(0);
        expect(Buffer.byteLength(JSON.stringify({ code, message, data }))).toBeLessThan(1024);
      }
    } finally {
      connection.close();
      child.kill();
      await withDeadline(exited, 5_000, "the conformance agent to exit");
    }
  });

  it("does not fail a client that answers every round trip in 3 s (within the 5 s bound) for a check's number of round trips: the first check passes", async () => {
    const { child, exited } = spawnAgent("--cancel-window", "0");
    const said: string[] = [];
    const app = client({ name: "slow-answers" })
      .onRequest(
        PING_METHOD,
        (params) => params,
        async () => {
          await delay(3_000);
          return {};
        },
      )
      .onNotification("session/update", ({ params }) => {
        const update = params.update as Update;
        const text = (update.content as { text?: string } | undefined)?.text;
        if (update.sessionUpdate === "agent_message_chunk" && text !== undefined) {
          said.push(text);
        }
      });
    const connection = app.connect(
      ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
    );
    try {
      await connection.agent.request("initialize", {
        protocolVersion: 2,
        info: { name: "t", version: "1" },
        capabilities: {},
      });
      const { sessionId } = await connection.agent.request("session/new", { cwd: process.cwd() });
      await connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "check" }],
      });
      const first = await until(() => said.find((text) => /^. (PASS|FAIL) /.test(text)), {
        timeoutMs: 60_000,
        message: "the first check's result",
      });
      expect(first).toMatch(/^✓ PASS /);
    } finally {
      connection.close();
      child.kill();
      await withDeadline(exited, 5_000, "the conformance agent to exit");
    }
  }, 90_000);

  it("answers the session methods it advertises: list, resume with a state snapshot, close ending the battery as cancelled", async () => {
    const { child, exited } = spawnAgent("--cancel-window", "60000");
    const updates: Update[] = [];
    const app = client({ name: "session-methods" }).onNotification(
      "session/update",
      ({ params }) => {
        updates.push(params.update as Update);
      },
    );
    const connection = app.connect(
      ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
    );
    try {
      await connection.agent.request("initialize", {
        protocolVersion: 2,
        info: { name: "t", version: "1" },
        capabilities: {},
      });
      const cwd = process.cwd();
      const { sessionId } = await connection.agent.request("session/new", { cwd });
      expect(await connection.agent.request("session/list", { cwd })).toEqual({
        sessions: [{ sessionId, cwd }],
      });
      expect(
        (await connection.agent.request("session/list", { cwd: "/elsewhere" })).sessions,
      ).toEqual([]);
      await connection.agent.request("session/resume", {
        sessionId,
        cwd,
        replayFrom: { type: "start" },
      });
      // The agent sends the snapshot before its answer; the SDK client may deliver it just after.
      await until(() => updates.length > 0, { message: "the state snapshot of session/resume" });
      expect(updates).toEqual([{ sessionUpdate: "state_update", state: "idle", background: [] }]);
      await connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "check" }],
      });
      // Close while the battery waits in its cancel window.
      await until(
        () =>
          updates.some(
            (u) =>
              u.sessionUpdate === "agent_message_chunk" &&
              JSON.stringify(u).includes("for terminal/cancel"),
          ),
        { timeoutMs: 30_000, message: "the cancel window to open" },
      );
      await connection.agent.request("session/close", { sessionId });
      const idle = await until(
        () => updates.find((u) => u.sessionUpdate === "state_update" && u.stopReason != null),
        { message: "the idle state_update ending the cancelled battery" },
      );
      expect(idle).toMatchObject({ state: "idle", stopReason: "cancelled", background: [] });
      expect((await connection.agent.request("session/list", {})).sessions).toEqual([]);
    } finally {
      connection.close();
      child.kill();
      await withDeadline(exited, 5_000, "the conformance agent to exit");
    }
  });

  it("still routes a v1 client to the v1 battery", async () => {
    const { child, exited } = spawnAgent();
    const updates: { sessionUpdate: string; content?: unknown }[] = [];
    const app = v1
      .client({ name: "v1-test-client" })
      .onNotification("session/update", ({ params }) => {
        updates.push(params.update);
      });
    const connection = app.connect(
      v1.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
    );
    try {
      const init = await connection.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: {},
      });
      expect(init.protocolVersion).toBe(1);
      const { sessionId } = await connection.agent.request("session/new", {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const { stopReason } = await connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "check" }],
      });
      expect(stopReason).toBe("end_turn");
      expect(
        updates.map((u) => (u.content as { text?: string } | undefined)?.text ?? "").join(""),
      ).toContain("does not advertise clientCapabilities.terminal: true");
    } finally {
      connection.close();
      child.kill();
      await withDeadline(exited, 5_000, "the conformance agent to exit");
    }
  });
});
