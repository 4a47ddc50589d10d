/**
 * Claude Code 2.1.332 as the MCP host, from a recording (test/fixtures/claude-code-mcp/, made by
 * test/adapters/record-claude-mcp.mjs with the real Claude Code from npm, headless, against a
 * scripted model): what Claude Code sent and got, and the same messages replayed against this
 * build of the server. The scripted model runs a 12 s ticker with exec (yieldMs 3000) and waits
 * for it with process wait; runs `seq 1 7000000`; then runs a command no one approves (Claude
 * Code headless answers the approval question `cancel` by itself). The ticker is approved by the
 * README's Elicitation hook.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { markedEnv, MCP_MAIN } from "./support/mcp-server.js";
import { withDeadline } from "./support/until.js";

const DIR = new URL("./fixtures/claude-code-mcp/", import.meta.url);
const RECORDED_WORKSPACE = "/tmp/acp-recording/project";

interface Message {
  id?: string | number;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
  error?: { code: number; message: string };
}
interface Entry {
  t: number;
  from?: "client" | "agent";
  msg?: Message;
  exit?: { code: number | null };
}

const wire = readFileSync(new URL("scenario.wire.jsonl", DIR), "utf8")
  .trimEnd()
  .split("\n")
  .map((line) => JSON.parse(line) as Entry);
const summary = JSON.parse(readFileSync(new URL("scenario.json", DIR), "utf8")) as {
  claudeCode: string;
  serverArgs: string[];
  modelRequests: number;
};
const sent = wire.filter((e) => e.from === "client" && e.msg).map((e) => e.msg!);
const answered = (id: Message["id"]) =>
  wire.find((e) => e.from === "agent" && e.msg?.id === id && !e.msg?.method)?.msg;
const calls = sent.filter((m) => m.method === "tools/call");
/** The final answer of each tools/call (after any input_required round), in order. */
const finals = calls
  .map((m) => ({ request: m, answer: answered(m.id)! }))
  .filter(({ answer }) => answer.result?.resultType !== "input_required");

describe("the recorded Claude Code session", () => {
  test("is whole: in order, every request answered, the server exited, no machine paths", () => {
    const times = wire.map((e) => e.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(wire.at(-1)?.exit).toEqual({ code: 0, signal: null });
    for (const request of sent.filter((m) => m.id !== undefined)) {
      expect(answered(request.id), `${request.method} #${request.id}`).toBeDefined();
    }
    const text = readFileSync(new URL("scenario.wire.jsonl", DIR), "utf8");
    expect(text).not.toMatch(/\/work\/|\/root\/|\/home\/(?!user)/);
    expect(summary.claudeCode).toBe("2.1.332");
  });

  test("Claude Code connects with the 2026-07-28 handshake and declares no Tasks for a server the user configures", () => {
    expect(sent[0]).toMatchObject({ method: "server/discover" });
    const meta = calls[0]!.params!["_meta"] as Record<string, any>;
    expect(meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    const capabilities = meta["io.modelcontextprotocol/clientCapabilities"];
    expect(capabilities).toHaveProperty("elicitation");
    expect(JSON.stringify(capabilities)).not.toContain("tasks");
  });

  test("the 12 s ticker took one exec and one process wait, which ended at the exit: 5 model turns in all", () => {
    expect(finals.map(({ request }) => request.params!["name"])).toEqual([
      "exec",
      "process",
      "exec",
      "exec",
    ]);
    const [exec, wait] = finals.map(({ answer }) => answer.result!["structuredContent"]);
    expect(exec).toMatchObject({ status: "running" });
    expect(wait).toMatchObject({ woke: "exit", status: "completed", exitCode: 0 });
    const ticks = Array.from({ length: 12 }, (_, i) => `tick ${i + 1}\n`).join("");
    expect(exec.tail + wait.output).toBe(ticks);
    expect(summary.modelRequests).toBe(5);
  });

  test("the wait sent progress while it waited; the ticker's approval came from the hook; the unanswered command's refusal says nobody was asked", () => {
    const waitId = finals[1]!.request.id;
    const progress = wire.filter(
      (e) =>
        e.msg?.method === "notifications/progress" &&
        e.msg.params?.["progressToken"] === finals[1]!.request.params!["_meta"].progressToken,
    );
    expect(progress.length).toBeGreaterThan(3);
    expect(answered(waitId)).toBeDefined();
    const ticker = calls.find((m) => m.params!["inputResponses"] && m.params!["name"] === "exec");
    expect(Object.values(ticker!.params!["inputResponses"] as object)).toEqual([
      { action: "accept", content: { decision: "once" } },
    ]);
    const refused = finals[3]!.answer.result!;
    expect(refused["isError"]).toBe(true);
    expect(refused["content"][0].text).toMatch(
      /^Not run: touch made-without-asking\. Nobody was asked: the host answered the approval question with \{"action":"cancel"\} \d+ ms after it was sent/,
    );
  });
});

describe("replayed against this build", () => {
  let workspace: string;
  let mark: string;
  let server: ChildProcess;
  const received: Message[] = [];

  beforeAll(() => {
    workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "claude-replay-")));
    mark = newMark();
    const args = summary.serverArgs.map((arg) => (arg === RECORDED_WORKSPACE ? workspace : arg));
    server = spawn(process.execPath, [MCP_MAIN, ...args], {
      env: markedEnv(mark),
      stdio: ["pipe", "pipe", "ignore"],
    });
    createInterface({ input: server.stdout! }).on("line", (line) =>
      received.push(JSON.parse(line) as Message),
    );
  });
  afterAll(async () => {
    server.stdin?.end();
    await untilNoneMarked(mark);
    rmSync(workspace, { recursive: true, force: true });
  });

  /** Sends a request and resolves with its answer. */
  async function request(message: Message): Promise<Message> {
    server.stdin!.write(`${JSON.stringify(message)}\n`);
    return withDeadline(
      (async () => {
        for (;;) {
          const answer = received.find((m) => m.id === message.id && !m.method);
          if (answer) {
            return answer;
          }
          await new Promise((resolve) => server.stdout!.once("data", resolve));
        }
      })(),
      60_000,
      `the answer to ${message.method} #${message.id}`,
    );
  }

  test("answers Claude Code's messages as it answered them when recorded: the ticker in one wait until its exit, seq cut on line breaks, the unanswered command refused saying nobody was asked", async () => {
    /** The live server's question keys and signed state, for the recorded retry of a call. */
    let asked: { keys: string[]; state: string } | undefined;
    /** Recorded run ids to this server's: the recorded calls name the runs of the recording. */
    const runs = new Map<string, string>();
    const finalsLive: Message[] = [];
    for (const message of sent) {
      const params = message.params
        ? (JSON.parse(
            JSON.stringify(message.params).replace(/run_[0-9a-f]+/g, (id) => runs.get(id) ?? id),
          ) as Record<string, any>)
        : undefined;
      if (params?.["inputResponses"] && asked) {
        const recorded = Object.values(params["inputResponses"] as object);
        params["inputResponses"] = Object.fromEntries(asked.keys.map((k, i) => [k, recorded[i]]));
        params["requestState"] = asked.state;
      }
      const answer = await request({ ...message, ...(params ? { params } : {}) });
      expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
      const result = answer.result!;
      if (result["resultType"] === "input_required") {
        const recordedAnswer = answered(message.id)!.result!;
        expect(Object.keys(result["inputRequests"])).toHaveLength(
          Object.keys(recordedAnswer["inputRequests"]).length,
        );
        asked = { keys: Object.keys(result["inputRequests"]), state: result["requestState"] };
      } else if (message.method === "tools/call") {
        finalsLive.push(answer);
        const recordedId = answered(message.id)!.result!["structuredContent"]?.sessionId;
        if (typeof recordedId === "string") {
          runs.set(recordedId, result["structuredContent"].sessionId as string);
        }
      }
    }
    expect(finalsLive).toHaveLength(finals.length);
    const [exec, wait, seq, refused] = finalsLive.map((m) => m.result!);
    expect(exec!["structuredContent"]).toMatchObject({ status: "running" });
    expect(wait!["structuredContent"]).toMatchObject({ woke: "exit", status: "completed" });
    const ticks = Array.from({ length: 12 }, (_, i) => `tick ${i + 1}\n`).join("");
    expect(exec!["structuredContent"].tail + wait!["structuredContent"].output).toBe(ticks);
    // seq's answer is the recorded one, but for the run id in its read call.
    const runIds = (text: string) => text.replace(/run_[0-9a-f]+/g, "run_ID");
    const recordedSeq = finals[2]!.answer.result!["structuredContent"];
    const liveSeq = seq!["structuredContent"];
    expect(runIds(liveSeq.output)).toBe(runIds(recordedSeq.output));
    const lines = (liveSeq.output as string).split("\n");
    const at = lines.findIndex((line) => line.startsWith("[... "));
    expect(lines.slice(at - 1, at + 2).map((line) => line.slice(0, 20))).toEqual([
      "4181",
      "[... 54849298 bytes ",
      "6997526",
    ]);
    expect(refused!["isError"]).toBe(true);
    expect(refused!["content"][0].text).toMatch(
      /^Not run: touch made-without-asking\. Nobody was asked: the host answered the approval question with \{"action":"cancel"\} \d+ ms after it was sent, too soon for anyone to have read it/,
    );
  });
});
