/**
 * `acp-terminal proxy` between a scripted editor on the SDK that advertises nothing
 * (support/proxy-editor.ts) and a raw JSON-RPC agent (fixtures/proxy-agent.mjs) over real stdio:
 * passthrough byte for byte, the initialize the agent sees, served terminals asked in the
 * editor's UI and shown as text, the `_meta` dialect, cancellation, and the faults, with the
 * processes left counted.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { constants, homedir, tmpdir } from "node:os";
import path from "node:path";
import { RequestError, type RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processesWithEnv } from "./support/processes.js";
import {
  CLI,
  leftAfterEnd,
  PROXY_AGENT,
  startProxyEditor,
  type ProxyEditor,
  type ProxyEditorOptions,
} from "./support/proxy-editor.js";
import { until, withDeadline } from "./support/until.js";

const MARK = "PROXY_TEST_MARK";

let dir: string;
let mark: string;
let editor: ProxyEditor | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "proxy-test-"));
  mark = randomUUID();
});

afterEach(async () => {
  if (editor !== undefined && editor.child.exitCode === null) {
    await editor.close().catch(() => undefined);
  }
  editor = undefined;
  const left = await leftAfterEnd(() => processesWithEnv(MARK, mark));
  rmSync(dir, { recursive: true, force: true });
  expect(left, "processes left by the proxy, its agent or its terminals").toEqual([]);
});

/** A line of 64 KiB the editor floods the proxy with. */
const FLOOD_LINE = `${JSON.stringify({ jsonrpc: "2.0", method: "_x/flood", params: { text: "x".repeat(64 * 1024) } })}\n`;

/** The proxy, started, in front of the fixture agent that never reads its stdin; the test is the editor. */
async function startBehindStalledAgent() {
  const child = spawn(process.execPath, [CLI, "proxy", "--", process.execPath, PROXY_AGENT], {
    stdio: ["pipe", "ignore", "ignore"],
    env: { ...process.env, [MARK]: mark, PROXY_AGENT_READ_NOTHING: "1" },
  });
  const exited = once(child, "exit");
  await until(() => processesWithEnv(MARK, mark).length >= 2, {
    message: "the proxy and its agent to start",
  });
  return { child, exited };
}

/** Waits until `read()` stays the same for `quietMs` (a flood held back), and returns it. */
async function untilStill(
  read: () => number,
  { quietMs, timeoutMs }: { quietMs: number; timeoutMs: number },
): Promise<number> {
  let last = read();
  let since = Date.now();
  return until(
    () => {
      const now = read();
      if (now !== last) {
        last = now;
        since = Date.now();
        return undefined;
      }
      return Date.now() - since >= quietMs ? { now } : undefined;
    },
    { timeoutMs, intervalMs: 50, message: `the count to stay the same for ${quietMs} ms` },
  ).then(({ now }) => now);
}

const agentLog = () => path.join(dir, "agent.log");
const agentReceived = () => readFileSync(agentLog(), "utf8").trimEnd().split("\n");

function start(options: ProxyEditorOptions = {}): Promise<ProxyEditor> {
  return startProxyEditor({
    ...options,
    env: { ...process.env, PROXY_AGENT_LOG: agentLog(), [MARK]: mark, ...options.env },
  });
}

/** An update's content items as text (`[terminal]` for an item that is not text). */
function textsOf(update: Record<string, unknown> | undefined): string[] {
  const content = (update?.["content"] ?? []) as Array<Record<string, unknown>>;
  return content.map((item) =>
    item["type"] === "content"
      ? String((item["content"] as { text?: unknown }).text)
      : `[${String(item["type"])}]`,
  );
}

/** The updates of a tool call that gave its content. */
const contentUpdates = (e: ProxyEditor, toolCallId: string) =>
  e.updates().filter((u) => u["toolCallId"] === toolCallId && Array.isArray(u["content"]));

/** The text items of the last content the editor got for a tool call. */
const shownText = (e: ProxyEditor, toolCallId: string) =>
  textsOf(contentUpdates(e, toolCallId).at(-1));

const messageText = (e: ProxyEditor) =>
  e
    .updates()
    .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
    .map((u) => (u["content"] as { text: string }).text)
    .join("");

describe("acp-terminal proxy in front of an agent, for an editor that advertises nothing", () => {
  it("passes unknown methods, _meta, ids and the editor's answers through byte for byte, both ways", async () => {
    editor = await start();
    const sessionId = await editor.newSession();
    expect(await editor.prompt(sessionId, "probe")).toBe("end_turn");
    const ping = `{"method":"_x/ping" ,"jsonrpc":"2.0","params":{"n":2.50,"s":"\\u00e9\\/","_meta":{"k":[1,{}]}}}`;
    const ask = `{"jsonrpc":"2.0","id":"agent-probe","method":"_x/ask","params":{"q":1.0,"_meta":{"z":null}}}`;
    expect(editor.received).toContain(ping);
    expect(editor.received).toContain(ask);
    expect(editor.received).toContain(
      `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"session-1"}}`,
    );
    // Everything the editor wrote after initialize reached the agent as it was, in order.
    const afterInitialize = editor.sent.slice(1);
    expect(agentReceived().slice(1)).toEqual(afterInitialize);
    const answer = afterInitialize.find((line) => line.includes(`"agent-probe"`));
    expect(answer).toContain(`"editorSays":"answered _x/ask"`);
    expect(messageText(editor)).toContain(`probe answer: ${answer}`);
  });

  it("gives the agent the editor's initialize plus terminals and _meta terminal output, and the editor the agent's answer unchanged", async () => {
    editor = await start({
      initialize: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false }, _meta: { editor: "x" } },
        clientInfo: { name: "scripted-editor", version: "9" },
        _meta: { traceparent: "00-1" },
      },
    });
    const seen = (editor.initialized["_meta"] as { echo: Record<string, unknown> }).echo;
    const capabilities = seen["clientCapabilities"] as Record<string, unknown>;
    expect(seen["clientInfo"]).toEqual({ name: "scripted-editor", version: "9" });
    expect(seen["_meta"]).toEqual({ traceparent: "00-1" });
    expect(capabilities["terminal"]).toBe(true);
    expect(capabilities["fs"]).toEqual({ readTextFile: false });
    const meta = capabilities["_meta"] as Record<string, unknown>;
    expect(meta["editor"]).toBe("x");
    expect(meta["terminal_output"]).toBe(true);
    expect(meta["terminal_output_delta"]).toBe(true);
    expect(meta["acp-terminal"]).toMatchObject({ cursors: true, stdin: true });
    // The answer is the agent's line as it wrote it (its odd spacing kept).
    expect(editor.received[0]).toContain(`"result":{"protocolVersion":1, "agentCapabilities"`);
  });

  it("asks the editor before a command runs, with the real command line, cwd and sandbox, and shows its screen then its exit in the tool call", async () => {
    editor = await start({ proxyArgs: [] });
    const sessionId = await editor.newSession(dir);
    const line = "printf 'progress 10%%\\rprogress 100%%\\ndone\\n'";
    expect(await editor.prompt(sessionId, `run ${line}`)).toBe("end_turn");
    expect(editor.permissions).toHaveLength(1);
    const asked = editor.permissions[0]!;
    expect(asked.sessionId).toBe(sessionId);
    expect(asked.toolCall.title).toBe(`Run: ${line}`);
    const details = (asked.toolCall.content![0] as { content: { text: string } }).content.text;
    expect(details).toContain(`cwd: ${dir}`);
    expect(details).toContain("sandbox: off");
    expect(asked.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(shownText(editor, "call-1")).toEqual([
      "before",
      "```text\nprogress 100%\ndone\n```\nexit 0",
    ]);
    // The terminal item never reached the editor: it does not know the proxy's terminals.
    expect(editor.received.some((l) => l.includes(`"type":"terminal"`))).toBe(false);
    expect(messageText(editor)).toContain(
      `ran: {"exitCode":0,"signal":null} "progress 10%\\rprogress 100%\\ndone\\n"`,
    );
  });

  it("runs the agent's commands in the sandbox it was given, and says so in the question", async () => {
    // The sandbox gives commands a private /tmp: the workspace is elsewhere.
    mkdirSync(path.join(homedir(), ".cache"), { recursive: true });
    const workspace = mkdtempSync(path.join(homedir(), ".cache", "proxy-sandbox-"));
    try {
      editor = await start({ proxyArgs: ["--sandbox", "read-only", "--cwd", workspace] });
      const sessionId = await editor.newSession(workspace);
      await editor.prompt(sessionId, "run touch written 2>/dev/null && echo wrote || echo refused");
      expect(messageText(editor)).toContain(`"refused\\n"`);
      expect(existsSync(path.join(workspace, "written"))).toBe(false);
      const details = (editor.permissions[0]!.toolCall.content![0] as { content: { text: string } })
        .content.text;
      expect(details).toContain("sandbox: read-only");
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("runs a command an --allow pattern approves without asking, confined: it cannot write the workspace", async () => {
    mkdirSync(path.join(homedir(), ".cache"), { recursive: true });
    const workspace = mkdtempSync(path.join(homedir(), ".cache", "proxy-allow-"));
    try {
      editor = await start({ proxyArgs: ["--allow", "touch *", "--cwd", workspace] });
      const sessionId = await editor.newSession(workspace);
      await editor.prompt(sessionId, "run touch written");
      expect(editor.permissions).toEqual([]);
      expect(messageText(editor)).toMatch(/ran: \{"exitCode":1,.*Read-only file system/);
      expect(existsSync(path.join(workspace, "written"))).toBe(false);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("asks the editor about a command an --allow pattern matches outside the session's directory", async () => {
    editor = await start({ proxyArgs: ["--allow", "echo *"] });
    const sessionId = await editor.newSession(dir);
    await editor.prompt(sessionId, "run echo inside");
    expect(editor.permissions).toEqual([]);
    await editor.prompt(sessionId, "run-in / echo outside");
    expect(editor.permissions).toHaveLength(1);
    const question = (editor.permissions[0]!.toolCall.content![0] as { content: { text: string } })
      .content.text;
    expect(question).toContain("The agent wants to run: echo outside");
    expect(question).toContain("outside the session's directory");
    expect(messageText(editor)).toContain(`ran: {"exitCode":0,"signal":null} "outside\\n"`);
  });

  it("sends a running command's newest lines at most every 100 ms, and its whole final screen at the end", async () => {
    editor = await start({ proxyArgs: ["--yes", "--lines", "5"] });
    const sessionId = await editor.newSession(dir);
    const startedAt = performance.now();
    await editor.prompt(sessionId, "run for i in $(seq 1 40); do echo line $i; sleep 0.02; done");
    const elapsedMs = performance.now() - startedAt;
    const texts = contentUpdates(editor, "call-1").map((u) => textsOf(u)[1]!);
    const final = texts.at(-1)!;
    const live = texts
      .slice(0, -1)
      .filter((text) => text !== "running" && !text.endsWith("exit 0"));
    expect(final).toBe(
      `\`\`\`text\n${Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n")}\n\`\`\`\nexit 0`,
    );
    expect(live.length).toBeGreaterThan(0);
    for (const text of live) {
      const shown = /```text\n([^]*)\n```/.exec(text)![1]!.split("\n");
      expect(shown.length).toBeLessThanOrEqual(5);
      const last = Number(shown.at(-1)!.replace("line ", ""));
      if (last > 5) {
        const earlier = last - 5;
        expect(text.startsWith(`… ${earlier} earlier line${earlier === 1 ? "" : "s"}\n`)).toBe(
          true,
        );
      }
    }
    // The proxy's own updates of this call: the first content, the live ones, the final one.
    expect(live.length).toBeLessThanOrEqual(Math.ceil(elapsedMs / 100) + 1);
  });

  it("refuses the agent's command when the editor denies it, and asks once for a command allowed for the session", async () => {
    let answer = "deny";
    editor = await start({
      proxyArgs: [],
      permission: () => ({ outcome: { outcome: "selected", optionId: answer } }),
    });
    const sessionId = await editor.newSession(dir);
    await editor.prompt(sessionId, "run echo one");
    expect(messageText(editor)).toMatch(/refused: -32\d+ Denied by the user: echo one/);
    answer = "allow_always";
    await editor.prompt(sessionId, "run echo two");
    await editor.prompt(sessionId, "run echo two");
    expect(editor.permissions.map((p) => p.toolCall.title)).toEqual([
      "Run: echo one",
      "Run: echo two",
    ]);
    expect(messageText(editor)).toContain(`ran: {"exitCode":0,"signal":null} "two\\n"`);
  });

  it("runs nothing when the editor answers its question with an invented option or a malformed outcome", async () => {
    const answers: unknown[] = [
      { outcome: { outcome: "selected", optionId: "invented" } },
      { outcome: { outcome: "selected" } },
      { outcome: "allow_once" },
    ];
    let next = 0;
    editor = await start({
      proxyArgs: [],
      permission: () => answers[next++] as RequestPermissionResponse,
    });
    const sessionId = await editor.newSession(dir);
    for (const index of [0, 1, 2]) {
      await editor.prompt(sessionId, `run touch ${path.join(dir, `made-${index}`)}`);
      expect(existsSync(path.join(dir, `made-${index}`)), `answer ${index}`).toBe(false);
    }
    expect(messageText(editor).match(/refused: -32\d+/g)).toHaveLength(3);
  });

  it("tells the agent why its command was refused when the editor has no permission UI", async () => {
    editor = await start({
      proxyArgs: [],
      permission: () => {
        throw RequestError.methodNotFound("session/request_permission");
      },
    });
    const sessionId = await editor.newSession(dir);
    await editor.prompt(sessionId, "run echo hi");
    expect(messageText(editor)).toMatch(
      /refused: -32\d+ .*the editor has no permission UI \(it answered session\/request_permission with -32601.*pass --yes to acp-terminal proxy/,
    );
  });

  it("shows a command the agent reports in _meta as text, its redraws rendered, without the reports the editor does not read", async () => {
    editor = await start();
    const sessionId = await editor.newSession();
    await editor.prompt(sessionId, "meta");
    expect(shownText(editor, "meta-1")).toEqual(["```text\none\nTWO\n```\nexit 0"]);
    const forCall = editor.updates().filter((u) => u["toolCallId"] === "meta-1");
    expect(forCall.some((u) => JSON.stringify(u).includes("terminal_output_delta"))).toBe(false);
    expect(forCall.at(-1)?.["status"]).toBe("completed");
  });

  it("passes the _meta dialect through to an editor that declared it, and shows the proxy's own terminals in it", async () => {
    editor = await start({
      initialize: {
        protocolVersion: 1,
        clientCapabilities: { _meta: { terminal_output_delta: true } },
      },
    });
    const sessionId = await editor.newSession(dir);
    await editor.prompt(sessionId, "meta");
    const deltas = editor.received.filter(
      (l) => l.includes(`"session/update"`) && l.includes(`"terminal_output_delta"`),
    );
    expect(deltas).toHaveLength(3);
    // The terminal has exited before the tool call shows it: its output and exit follow the call.
    await editor.prompt(sessionId, "run-late printf 'a\\nb\\n'");
    const call = editor.updates().filter((u) => u["toolCallId"] === "call-1");
    const info = call.find((u) => u["sessionUpdate"] === "tool_call")?.["_meta"] as Record<
      string,
      { terminal_id: string; cwd: string }
    >;
    expect(info["terminal_info"]?.cwd).toBe(dir);
    const terminalId = info["terminal_info"]!.terminal_id;
    const output = call
      .map(
        (u) =>
          (u["_meta"] as Record<string, { terminal_id: string; data?: string }> | undefined)?.[
            "terminal_output_delta"
          ],
      )
      .filter((o) => o?.terminal_id === terminalId)
      .map((o) => o!.data)
      .join("");
    expect(output).toBe("a\nb\n");
    const exit = call.find(
      (u) => (u["_meta"] as Record<string, unknown> | undefined)?.["terminal_exit"],
    );
    expect((exit?.["_meta"] as Record<string, unknown>)["terminal_exit"]).toEqual({
      terminal_id: terminalId,
      exit_code: 0,
      signal: null,
    });
  });

  it("shows at most 16 of one tool call's terminals as text, however many it lists", async () => {
    editor = await start();
    const sessionId = await editor.newSession(dir);
    await editor.prompt(sessionId, "items 1000 echo many");
    const texts = shownText(editor, "call-items");
    expect(texts).toHaveLength(1000);
    expect(texts.filter((t) => t === "```text\nmany\n```\nexit 0")).toHaveLength(16);
    expect(texts.filter((t) => t === "[terminal]")).toHaveLength(984);
  });

  it("answers the agent's terminal requests past 1024 waiting with an error, and the others once they can", async () => {
    editor = await start();
    const sessionId = await editor.newSession(dir);
    expect(await editor.prompt(sessionId, "waits 1100")).toBe("end_turn");
    expect(messageText(editor)).toContain(
      "waits: 76 Too many terminal requests waiting (1024): terminal/wait_for_exit was not served",
    );
  });

  it("answers terminal requests with an invented id, wrong types or another session's terminal with an error naming what is wrong", async () => {
    editor = await start({ proxyArgs: ["--yes"] });
    const sessionId = await editor.newSession(dir);
    const other = await editor.newSession(dir);
    const sent = async (session: string, method: string, params: unknown) => {
      const before = messageText(editor!).length;
      expect(await editor!.prompt(session, `send ${method} ${JSON.stringify(params)}`)).toBe(
        "end_turn",
      );
      const said = messageText(editor!).slice(before);
      return JSON.parse(said.slice(said.indexOf("sent: ") + 6)) as {
        code?: number;
        message?: string;
        terminalId?: string;
      };
    };
    for (const method of ["terminal/output", "terminal/wait_for_exit", "terminal/kill"]) {
      const answer = await sent(sessionId, method, { terminalId: "invented-1" });
      expect(answer.code, method).toBeTypeOf("number");
      expect(answer.message, method).toContain("invented-1");
    }
    // Releasing is idempotent in the host: an unknown id has nothing to release.
    expect(await sent(sessionId, "terminal/release", { terminalId: "invented-1" })).toEqual({});
    const wrong = await sent(sessionId, "terminal/create", { command: { nested: [1] } });
    expect(wrong.code).toBe(-32602);
    expect(wrong.message).toContain("command");
    const created = await sent(sessionId, "terminal/create", { command: "sleep 30" });
    expect(created.terminalId).toBeTypeOf("string");
    const stolen = await sent(other, "terminal/output", { terminalId: created.terminalId });
    expect(stolen.code).toBeTypeOf("number");
    // The owner still reads and releases it.
    expect(await sent(sessionId, "terminal/kill", { terminalId: created.terminalId })).toEqual({});
    expect(await sent(sessionId, "terminal/release", { terminalId: created.terminalId })).toEqual(
      {},
    );
  });

  it("leaves terminal/* to an editor that advertises terminals (auto), and serves them itself with --terminals serve", async () => {
    const initialize = { protocolVersion: 1, clientCapabilities: { terminal: true } };
    editor = await start({ initialize });
    let sessionId = await editor.newSession(dir);
    expect(await editor.prompt(sessionId, "run echo forwarded")).toBe("end_turn");
    // The editor got the agent's request itself and answered it.
    expect(editor.received.some((l) => l.includes(`"method":"terminal/create"`))).toBe(true);
    expect(editor.permissions).toHaveLength(0);
    expect(messageText(editor)).toContain(`"editorSays":"answered terminal/wait_for_exit"`);
    await editor.close();
    editor = await start({ initialize, proxyArgs: ["--terminals", "serve"] });
    sessionId = await editor.newSession(dir);
    expect(await editor.prompt(sessionId, "run echo served")).toBe("end_turn");
    expect(editor.received.some((l) => l.includes(`"method":"terminal/create"`))).toBe(false);
    expect(editor.permissions).toHaveLength(1);
    expect(shownText(editor, "call-1")).toEqual(["before", "```text\nserved\n```\nexit 0"]);
  });

  it("passes session/cancel to the agent as it was, and its cancelled answer back", async () => {
    editor = await start();
    const sessionId = await editor.newSession();
    const turn = editor.prompt(sessionId, "wait-cancel");
    await until(() => agentReceived().some((l) => l.includes(`"wait-cancel"`)), {
      message: "the prompt to reach the agent",
    });
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect(await turn).toBe("cancelled");
    const cancel = editor.sent.find((l) => l.includes(`"session/cancel"`));
    expect(agentReceived()).toContain(cancel);
  });

  it("passes the editor's $/cancel_request to the agent as it was, and answers the agent's cancel of a served wait", async () => {
    editor = await start();
    const sessionId = await editor.newSession(dir);
    const cancel = `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":99,"_meta":{"x":1.0}}}`;
    editor.writeLine(cancel);
    await editor.prompt(sessionId, "cancel-wait");
    expect(agentReceived()).toContain(cancel);
    expect(messageText(editor)).toMatch(
      /cancelled: \{"jsonrpc":"2.0","id":"agent-\d+","error":\{"code":-32800/,
    );
  });

  it("answers a line that is not JSON-RPC with an error on its own side, and goes on", async () => {
    editor = await start();
    editor.writeLine("{not json");
    editor.writeLine(`{"jsonrpc":"2.0","id":7}`);
    await editor.waitFor(
      (m) => m["id"] === null && (m["error"] as { code: number }).code === -32700,
      "a parse error",
    );
    await editor.waitFor(
      (m) => m["id"] === 7 && (m["error"] as { code: number }).code === -32600,
      "an invalid request error",
    );
    const sessionId = await editor.newSession();
    await editor.prompt(sessionId, "malformed");
    expect(messageText(editor)).toContain("malformed: -32700 -32600");
    expect(agentReceived().some((l) => l.includes("not json"))).toBe(false);
  });

  it("drops a line over 32 MiB with an error, and goes on", async () => {
    editor = await start();
    editor.writeLine(
      `{"jsonrpc":"2.0","method":"_x/big","params":{"data":"${"x".repeat(33 * 1024 * 1024)}"}}`,
    );
    await editor.waitFor(
      (m) =>
        (m["error"] as { message?: string } | undefined)?.message?.includes(
          "more than 33554432 bytes",
        ) === true,
      "the too-long error",
    );
    const sessionId = await editor.newSession();
    expect(await editor.prompt(sessionId, "probe")).toBe("end_turn");
  });

  it("answers every pending request with an error when the agent exits, and exits with its status", async () => {
    editor = await start();
    const sessionId = await editor.newSession();
    await expect(editor.prompt(sessionId, "exit 3")).rejects.toThrow(
      /the agent exited with code 3 before answering session\/prompt/,
    );
    expect(await editor.exited).toEqual({ code: 3, signal: null });
  });

  it("ends the agent and every terminal when the editor closes stdin", async () => {
    editor = await start();
    const sessionId = await editor.newSession();
    void editor.prompt(sessionId, "hang sleep 1000").catch(() => undefined);
    await until(() => messageText(editor!).includes("pids agent="), {
      message: "the terminal to start",
    });
    expect(processesWithEnv(MARK, mark).length).toBeGreaterThanOrEqual(3); // proxy, agent, sleep
    expect(await editor.close()).toEqual({ code: 0, signal: null });
    await until(() => processesWithEnv(MARK, mark).length === 0, { message: "nothing left" });
  });

  it("answers the pending prompt with an error and ends its terminals when the agent is SIGKILLed", async () => {
    editor = await start();
    const sessionId = await editor.newSession();
    const prompt = editor.prompt(sessionId, "hang sleep 1000");
    await until(() => messageText(editor!).includes("pids agent="), {
      message: "the terminal to start",
    });
    const agentPid = Number(/pids agent=(\d+)/.exec(messageText(editor))![1]);
    process.kill(agentPid, "SIGKILL");
    // The agent runs under a shell, which reports the signal as 128 + 9.
    await expect(prompt).rejects.toThrow("(128 + SIGKILL: killed by SIGKILL)");
    expect(await editor.exited).toEqual({ code: 128 + 9, signal: null });
    await until(() => processesWithEnv(MARK, mark).length === 0, { message: "nothing left" });
  });

  it("leaves nothing running when the proxy itself is SIGKILLed with a terminal running", async () => {
    editor = await start();
    const sessionId = await editor.newSession();
    void editor.prompt(sessionId, "hang sleep 1000").catch(() => undefined);
    await until(() => messageText(editor!).includes("pids agent="), {
      message: "the terminal to start",
    });
    expect(processesWithEnv(MARK, mark).length).toBeGreaterThanOrEqual(3);
    editor.child.kill("SIGKILL");
    await editor.exited;
    await until(() => processesWithEnv(MARK, mark).length === 0, {
      timeoutMs: 10_000,
      message: "the agent and the terminal's command to end after the proxy's SIGKILL",
    });
  });

  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`ends the agent and every terminal when the editor sends the proxy ${signal}, even an agent that ignores its stdin's end`, async () => {
      editor = await start({ env: { PROXY_AGENT_IGNORE_EOF: "1" } });
      const sessionId = await editor.newSession();
      void editor.prompt(sessionId, "hang sleep 1000").catch(() => undefined);
      await until(() => messageText(editor!).includes("pids agent="), {
        message: "the terminal to start",
      });
      editor.child.kill(signal);
      expect(await editor.exited).toEqual({
        code: 128 + constants.signals[signal],
        signal: null,
      });
      await until(() => processesWithEnv(MARK, mark).length === 0, {
        timeoutMs: 10_000,
        message: `the agent and the terminal's command to end after the proxy's ${signal}`,
      });
    });
  }

  it("ends an agent that reads nothing when the editor closes stdin after writing more than a pipe holds", async () => {
    const { child, exited } = await startBehindStalledAgent();
    // 768 KB: more than the pipes to the stalled agent hold, less than those and the proxy's
    // read-ahead together; then the editor closes stdin, its last bytes still in the pipe.
    const line = FLOOD_LINE;
    for (let i = 0; i < 12; i++) {
      child.stdin.write(line);
    }
    child.stdin.end();
    const [code] = (await withDeadline(
      exited,
      15_000,
      "the proxy to end after the editor closed stdin",
    )) as [number | null];
    expect(code).toBe(0);
    await until(() => processesWithEnv(MARK, mark).length === 0, { message: "nothing left" });
  });

  it("still holds a flood from the editor back through the pipe while the agent reads nothing", async () => {
    const { child, exited } = await startBehindStalledAgent();
    const line = FLOOD_LINE;
    const offered = 1024; // 64 MiB, a line at a time as the pipe takes it
    let accepted = 0;
    const next = () => {
      if (accepted < offered && !child.stdin.destroyed) {
        child.stdin.write(line, (error) => {
          if (error === null || error === undefined) {
            accepted++;
            next();
          }
        });
      }
    };
    child.stdin.on("error", () => undefined);
    next();
    const held = await untilStill(() => accepted, { quietMs: 1_000, timeoutMs: 20_000 });
    const bytes = held * line.length;
    // The pipes (a few 100 KB each), the writer's high-water mark and the read-ahead (1 MiB).
    expect(bytes, "bytes the proxy took from the editor").toBeLessThan(4 * 1024 * 1024);
    expect(held).toBeLessThan(offered);
    child.kill("SIGTERM");
    const [code] = (await withDeadline(exited, 10_000, "the proxy to end on SIGTERM")) as [
      number | null,
    ];
    expect(code).toBe(128 + constants.signals.SIGTERM);
    await until(() => processesWithEnv(MARK, mark).length === 0, { message: "nothing left" });
  });

  it("answers the editor's first request with why it cannot start, and exits 1", async () => {
    const child = spawn(process.execPath, [CLI, "proxy", "--", "no-such-agent-for-the-proxy"], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, [MARK]: mark },
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} })}\n`,
    );
    const answer = JSON.parse((await lines.next()).value as string) as {
      id: number;
      error: { message: string };
    };
    expect(answer.id).toBe(0);
    expect(answer.error.message).toMatch(/acp-terminal proxy: .*no-such-agent-for-the-proxy/);
    const [code] = (await once(child, "exit")) as [number];
    expect(code).toBe(1);
    expect(stderr).toContain("no-such-agent-for-the-proxy");
  });
});
