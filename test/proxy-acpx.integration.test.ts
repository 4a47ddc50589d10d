/**
 * `acp-terminal proxy` in front of a real terminal-less client: acpx 0.19.1 with `--no-terminal`
 * (support/acpx.ts), reading what such an editor receives from its `--format json` output. The
 * agents: the demo agent (its tour runs in the proxy's terminals, asked in acpx), and the recorded
 * sessions of claude-agent-acp and codex-acp (test/fixtures/adapters, replayed by
 * fixtures/replay-agent.mjs), whose `_meta` terminal output acpx does not read.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { proxyCommand, runAcpx, toolCallTexts, updatesOf, type AcpxRun } from "./support/acpx.js";
import { processesWithEnv } from "./support/processes.js";
import { leftAfterEnd } from "./support/proxy-editor.js";
import { DEMO_AGENT } from "./fixtures/demo-processes.js";
import { CONFORMANCE_AGENT } from "./fixtures/cli-process.js";

const REPLAY = fileURLToPath(new URL("./fixtures/replay-agent.mjs", import.meta.url));
const RECORDINGS = fileURLToPath(new URL("./fixtures/adapters/", import.meta.url));
const TERMINAL_AGENTS = fileURLToPath(new URL("./fixtures/terminal-agents/", import.meta.url));
const MARK = "PROXY_ACPX_MARK";

let dir: string;
let mark: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "proxy-acpx-"));
  mark = randomUUID();
});

afterEach(async () => {
  const left = await leftAfterEnd(() => processesWithEnv(MARK, mark));
  rmSync(dir, { recursive: true, force: true });
  expect(left, "processes left by acpx, the proxy, the agent or its terminals").toEqual([]);
});

const run = (agent: string[], prompt: string, proxyArgs: string[] = []): Promise<AcpxRun> =>
  runAcpx(proxyCommand(proxyArgs, agent), prompt, { cwd: dir, env: { [MARK]: mark } });

const messages = (r: AcpxRun) =>
  updatesOf(r)
    .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
    .map((u) => (u["content"] as { text: string }).text)
    .join("");

/**
 * Nothing acpx cannot show reached it: no terminal requests, no terminal items, no `_meta` output
 * reports (a `_meta.terminal_exit` that comes with a status passes on with it, unread). Counted,
 * so a failure does not print the whole wire.
 */
function expectNoTerminalDialect(r: AcpxRun): void {
  const lines = r.messages.map((m) => JSON.stringify(m));
  const count = (needle: string) => lines.filter((line) => line.includes(needle)).length;
  expect(r.messages.filter((m) => String(m["method"]).startsWith("terminal/"))).toEqual([]);
  expect(count(`"type":"terminal"`), "terminal items").toBe(0);
  expect(count(`"terminal_output_delta":{`), "_meta output reports").toBe(0);
  expect(count(`"terminal_output":{`), "_meta output reports").toBe(0);
}

describe("acp-terminal proxy in front of acpx --no-terminal", () => {
  it("runs the demo agent's tour in the proxy's terminals, asked in acpx, each command's screen and exit shown as text", async () => {
    const result = await run([process.execPath, DEMO_AGENT], "demo");
    expect(result.code, result.stderr).toBe(0);
    expect(messages(result)).toContain("Tour complete");
    const texts = [...toolCallTexts(result).values()];
    expect(texts).toContainEqual(
      expect.stringContaining("```text\nhello from the demo tour\nLinux x86_64\n```\nexit 0"),
    );
    expect(texts).toContainEqual(
      expect.stringContaining("```text\ncompiling (this takes a while)\n```\nkilled by SIGTERM"),
    );
    expect(texts).toContainEqual(expect.stringContaining("build done\n```\nexit 0"));
    const asked = result.messages.filter((m) => m["method"] === "session/request_permission");
    expect(asked.length).toBeGreaterThanOrEqual(8);
    expect(JSON.stringify(asked[0])).toContain(
      `"title":"Run: echo \\"hello from the demo tour\\"; uname -sm"`,
    );
    expectNoTerminalDialect(result);
  });

  it("shows claude-agent-acp's command output (v1 _meta, recorded) as text with its exit", async () => {
    const recording = path.join(RECORDINGS, "claude-v1-meta-delta.jsonl");
    const result = await run([process.execPath, REPLAY, recording], "go");
    expect(result.code, result.stderr).toBe(0);
    expect(toolCallTexts(result).get("toolu_standin_steps")).toBe(
      "```text\nstep 1\nstep 2\nstep 3\né✓🚀\n```\nexit 0",
    );
    expect(toolCallTexts(result).get("toolu_standin_ticks")).toContain(
      "Command running in background",
    );
    expectNoTerminalDialect(result);
  });

  it("shows codex-acp's command output (v1 _meta deltas, recorded) as text with its exit", async () => {
    const recording = path.join(RECORDINGS, "codex-v1-meta-delta.jsonl");
    const result = await run([process.execPath, REPLAY, recording], "go");
    expect(result.code, result.stderr).toBe(0);
    const texts = toolCallTexts(result);
    // codex-acp loses a command's first line (DIALECTS.md): the recording has none of "step 1".
    expect(texts.get("call_standin_1")).toBe("```text\nstep 2\nstep 3\né✓🚀\n```\nexit 0");
    expect(texts.get("call_standin_2")).toBe(
      "```text\ntick 2\ntick 3\ntick 4\ntick 5\n```\nexit 0",
    );
    expectNoTerminalDialect(result);
  });

  it("lets the conformance agent pass every v1 check on the proxy's terminals, with acpx showing each as text", async () => {
    const report = path.join(dir, "report.json");
    const result = await run([process.execPath, CONFORMANCE_AGENT, "--report", report], "go", [
      "--yes",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { checks, summary } = JSON.parse(readFileSync(report, "utf8")) as {
      checks: Array<{ id: string; status: string }>;
      summary: { failed: number; skipped: number; specFailures: number };
    };
    expect(checks.filter((check) => check.status !== "pass")).toEqual([]);
    expect(summary).toMatchObject({ failed: 0, skipped: 0, specFailures: 0 });
    expect(checks.length).toBeGreaterThanOrEqual(34);
    const texts = [...toolCallTexts(result).values()];
    expect(texts).toContainEqual(expect.stringMatching(/^```text\nready\n/));
    expectNoTerminalDialect(result);
  });

  it.each([
    ["claude-agent-acp", "claude-v2", "toolu_standin_steps", "step 1\nstep 2\nstep 3\né✓🚀"],
    ["codex-acp", "codex-v2", "call_standin_1", "step 2\nstep 3\né✓🚀"],
  ])(
    "speaks v2 to %s (recorded as a v2 agent: %s) and v1 to acpx, its agent-owned terminals shown as text",
    async (_agent, name, toolCallId, screen) => {
      const recording = path.join(RECORDINGS, `${name}.jsonl`);
      const result = await run([process.execPath, REPLAY, recording], "go");
      expect(result.code, result.stderr).toBe(0);
      const initialize = result.messages.find((m) => m["id"] === 0 && "result" in m);
      expect(initialize?.["result"]).toMatchObject({ protocolVersion: 1 });
      expect(toolCallTexts(result).get(toolCallId)).toBe(`\`\`\`text\n${screen}\n\`\`\`\nexit 0`);
      const variants = new Set(updatesOf(result).map((u) => u["sessionUpdate"]));
      expect(variants.has("terminal_update") || variants.has("state_update")).toBe(false);
      const prompt = result.messages.find((m) => m["method"] === "session/prompt");
      const answer = result.messages.find((m) => m["id"] === prompt?.["id"] && "result" in m);
      expect(answer?.["result"]).toEqual({ stopReason: "end_turn" });
      expectNoTerminalDialect(result);
    },
  );

  it.each([
    ["claude-code-acp 0.16.2", "claude-code-acp-seq", /^Run: seq 1 200000$/],
    ["omp 18.2.3", "omp-seq", /^Run: \/bin\/bash -l -c '?seq 1 200000'?$/],
  ])(
    "serves the terminal/create of %s (recorded: %s), asked in acpx, its output shown as text",
    async (_agent, name, asked) => {
      // The recording's run directory, /tmp/acp-recording, becomes this test's: its terminals' cwd.
      mkdirSync(path.join(dir, "project"));
      const recording = path.join(TERMINAL_AGENTS, `${name}.jsonl`);
      const result = await runAcpx(
        proxyCommand([], [process.execPath, REPLAY, recording, `/tmp/acp-recording=${dir}`]),
        "go",
        { cwd: path.join(dir, "project"), env: { [MARK]: mark } },
      );
      expect(result.code, result.stderr).toBe(0);
      const titles = result.messages
        .filter((m) => m["method"] === "session/request_permission")
        .map((m) => (m["params"] as { toolCall: { title: string } }).toolCall.title);
      expect(titles).toContainEqual(expect.stringMatching(asked));
      // The proxy's final screen (omp then replaces the content with its own text of the output).
      const shown = updatesOf(result)
        .filter((u) => u["toolCallId"] === "toolu_standin_shell")
        .map((u) => JSON.stringify(u["content"] ?? []));
      expect(shown).toContainEqual(expect.stringContaining("199999\\n200000\\n```\\nexit 0"));
      expectNoTerminalDialect(result);
    },
  );
});
