/**
 * The terminal conformance agent (acp-terminal-conformance) over real stdio: driven by the
 * acp-terminal CLI (everything passes), by a client without the terminal capability (a polite
 * refusal), and by a client that lies about truncation (the failures are caught and named).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { TerminalError, TerminalHost, bindTerminalHost } from "acp-terminal";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { withDeadline } from "./support/until.js";
import {
  CONFORMANCE_AGENT,
  killAllStarted,
  nodeAgent,
  runCli,
  track,
} from "./fixtures/cli-process.js";

interface Report {
  client: { name: string; version: string } | null;
  checks: { id: string; name: string; kind: string; status: string; detail: string }[];
  summary: { passed: number; failed: number; skipped: number; specFailures: number };
}

let dir: string | undefined;
afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  if (dir !== undefined) {
    await rm(dir, { recursive: true, force: true });
  }
  dir = undefined;
});

async function reportPath(): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), "conformance-"));
  return path.join(dir, "report.json");
}

/** Runs the conformance agent as a child with this test process as its ACP client. */
async function promptConformanceAgent(
  clientCapabilities: Record<string, unknown>,
  host?: TerminalHost,
  report?: string,
) {
  const child = spawn(
    process.execPath,
    [CONFORMANCE_AGENT, ...(report ? ["--report", report] : [])],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  track(child.pid!);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const updates: { sessionUpdate: string; [key: string]: unknown }[] = [];
  const terminalCalls: string[] = [];
  const app = client({ name: "conformance-test-client" }).onNotification(
    "session/update",
    ({ params }: { params: { update: (typeof updates)[number] } }) => {
      updates.push(params.update);
    },
  );
  if (host !== undefined) {
    bindTerminalHost(app, host);
  } else {
    app.onRequest("terminal/create", () => {
      terminalCalls.push("terminal/create");
      throw new Error("terminal/create was not advertised");
    });
  }
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
  );
  try {
    await connection.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities,
      clientInfo: { name: "test-client", version: "9.9.9" },
    });
    const { sessionId } = await connection.agent.request("session/new", {
      cwd: process.cwd(),
      mcpServers: [],
    });
    const response = await withDeadline(
      connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "check" }],
      }) as Promise<{ stopReason: string }>,
      60_000,
      "the conformance battery",
    );
    const text = updates
      .flatMap((u) =>
        u.sessionUpdate === "agent_message_chunk" ? [(u.content as { text: string }).text] : [],
      )
      .join("");
    return { stopReason: response.stopReason, updates, text, terminalCalls };
  } finally {
    connection.close();
    child.kill();
    await withDeadline(exited, 5_000, "the conformance agent to exit");
  }
}

describe("acp-terminal-conformance", () => {
  it("passes every check when acp-terminal run drives it, and writes the report", async () => {
    const report = await reportPath();
    const { code, stdout, stderr } = await runCli(
      [
        "run",
        // The v1 checks (the agent speaks v2 too: conformance-v2 covers that).
        "--protocol",
        "v1",
        "--yes",
        "--agent",
        nodeAgent(CONFORMANCE_AGENT, "--report", report),
        "run the checks",
      ],
      60_000,
    );
    expect(stderr).toMatch(/── end_turn · \d+ terminals/);
    expect(code).toBe(0);
    const { client: info, checks, summary } = JSON.parse(await readFile(report, "utf8")) as Report;
    expect(info).toEqual({
      name: "acp-terminal",
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
    expect(checks.filter((c) => c.status !== "pass")).toEqual([]);
    expect(checks.filter((c) => c.detail.includes("differs from acp-terminal"))).toEqual([]);
    expect(new Set(checks.map((c) => c.kind))).toEqual(
      new Set(["must", "should", "behaviour", "extension"]),
    );
    expect(summary).toEqual({ passed: checks.length, failed: 0, skipped: 0, specFailures: 0 });
    // Every check is a tool call with its name as title, and a pass line of message text.
    for (const check of checks) {
      expect(stdout).toContain(`✓ ${check.name} [completed]`);
      expect(stdout).toContain(`✓ PASS [${check.kind}] ${check.name}: `);
    }
    expect(stdout).toContain(
      `Terminal conformance: ${checks.length} passed, 0 failed, 0 skipped. The client conforms.`,
    );
    expect(stdout).toContain("  │ pid=");
  }, 60_000);

  it("refuses politely, without terminal calls, when the client lacks the terminal capability", async () => {
    const { stopReason, text, terminalCalls, updates } = await promptConformanceAgent({});
    expect(stopReason).toBe("end_turn");
    expect(text).toContain("does not advertise clientCapabilities.terminal: true");
    expect(terminalCalls).toEqual([]);
    expect(updates.some((u) => u.sessionUpdate === "tool_call")).toBe(false);
  });

  it("reports where a client's process handling differs, without failing it", async () => {
    // A client that signals only the command (no process group) and answers kill at once, waits
    // a minute for a grandchild's output to close, and leaves the user's pager in place.
    const real = new TerminalHost({
      killGraceMs: 300,
      exitDrainGraceMs: 60_000,
      env: (base) => ({ ...base, PAGER: "less" }),
    });
    const leaderOnly = new Proxy(real, {
      get(target, key) {
        if (key === "kill") {
          return async (owner: unknown, id: string) => {
            target.output(owner as never, id); // unknown ids fail as before
            const pid = target.info(id)?.pid;
            if (pid !== undefined && target.info(id)?.state === "running") {
              process.kill(pid, "SIGTERM");
            }
            return { exitCode: null, signal: null };
          };
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const report = await reportPath();
    try {
      const { stopReason } = await promptConformanceAgent({ terminal: true }, leaderOnly, report);
      expect(stopReason).toBe("end_turn");
      const { checks } = JSON.parse(await readFile(report, "utf8")) as Report;
      const detail = (id: string) => checks.find((c) => c.id === id)?.detail;
      expect(checks.filter((c) => c.status === "fail").map((c) => c.id)).toEqual([]);
      expect(detail("kill-reaches-grandchild")).toMatch(
        /still ran 3 s after terminal\/kill: only the command itself was signalled \(differs from acp-terminal\)$/,
      );
      expect(detail("exit-despite-grandchild")).toMatch(
        /^wait_for_exit had not returned 5 s after sh exited.*\(differs from acp-terminal\)$/,
      );
      expect(detail("kill-returns-after-exit")).toMatch(
        /had no exitStatus yet.*\(differs from acp-terminal\)$/,
      );
      expect(detail("relative-cwd-refused")).toMatch(
        /^cwd "\." refused with code -32602: .*\(same as acp-terminal\)$/,
      );
      expect(detail("pager-cat")).toBe(
        "PAGER=less GIT_PAGER=cat (acp-terminal sets both to cat unless its own environment sets them) (differs from acp-terminal)",
      );
    } finally {
      await real.dispose();
    }
  }, 60_000);

  it("fails release-answers-pending-wait for a client whose release fails the wait_for_exit pending on it (-32002, as before)", async () => {
    const real = new TerminalHost({ killGraceMs: 300 });
    const pending = new Map<string, Array<(error: Error) => void>>();
    const failingWaits = new Proxy(real, {
      get(target, key) {
        if (key === "waitForExit") {
          return (owner: never, id: string) =>
            new Promise((resolve, reject) => {
              pending.set(id, [...(pending.get(id) ?? []), reject]);
              target.waitForExit(owner, id).then(resolve, reject);
            });
        }
        if (key === "release") {
          return (owner: never, id: string) => {
            for (const reject of pending.get(id) ?? []) {
              reject(TerminalError.notFound(id));
            }
            return target.release(owner, id);
          };
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const report = await reportPath();
    try {
      const { stopReason } = await promptConformanceAgent({ terminal: true }, failingWaits, report);
      expect(stopReason).toBe("end_turn");
      const { checks } = JSON.parse(await readFile(report, "utf8")) as Report;
      const check = checks.find((c) => c.id === "release-answers-pending-wait")!;
      expect(check).toMatchObject({ kind: "should", status: "fail" });
      expect(check.detail).toMatch(
        /^the pending wait_for_exit failed \(Terminal not found: .*code -32002\)/,
      );
      expect(checks.filter((c) => c.status === "fail").map((c) => c.id)).toEqual([
        "release-answers-pending-wait",
      ]);
    } finally {
      await real.dispose();
    }
  });

  it("names the failures of a client that lies about truncation, and skips unadvertised extensions", async () => {
    const real = new TerminalHost({ killGraceMs: 300 });
    const lying = new Proxy(real, {
      get(target, key) {
        if (key === "output") {
          return (owner: unknown, id: string) => ({
            ...target.output(owner as never, id),
            truncated: false,
          });
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const report = await reportPath();
    try {
      const { stopReason, updates } = await promptConformanceAgent(
        { terminal: true },
        lying,
        report,
      );
      expect(stopReason).toBe("end_turn");
      const { checks, summary } = JSON.parse(await readFile(report, "utf8")) as Report;
      const byStatus = (status: string) =>
        checks.filter((c) => c.status === status).map((c) => c.id);
      expect(byStatus("fail")).toEqual([
        "limit-truncates-from-beginning",
        "limit-char-boundary-2-byte",
        "limit-char-boundary-3-byte",
        "limit-char-boundary-4-byte",
      ]);
      expect(checks.find((c) => c.id === "limit-truncates-from-beginning")!.detail).toBe(
        "truncated must be true, got false",
      );
      expect(byStatus("skip")).toEqual([
        "ext-write-stdin",
        "ext-pty-resize",
        "ext-signal-sigint",
        "ext-kill-signal",
        "ext-output-since",
      ]);
      expect(checks.find((c) => c.id === "ext-write-stdin")!.detail).toBe(
        'the client does not advertise _meta["acp-terminal"]',
      );
      expect(summary).toMatchObject({ failed: 4, specFailures: 4, skipped: 5 });
      const failedToolCalls = updates.filter(
        (u) => u.sessionUpdate === "tool_call_update" && u.status === "failed",
      );
      expect(failedToolCalls).toHaveLength(4);
    } finally {
      await real.dispose();
    }
  });
});
