/**
 * `acp-terminal proxy --on ssh://…`: the terminals it serves run on another machine (a real sshd
 * on 127.0.0.1, test/support/sshd.mjs), and the conformance agent's v1 battery passes through the
 * proxy in front of an editor that advertises nothing.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFORMANCE_AGENT } from "./fixtures/cli-process.js";
import { processesWithEnv } from "./support/processes.js";
import { leftAfterEnd, startProxyEditor } from "./support/proxy-editor.js";
import { startSshd, type TestSshd } from "./support/sshd.mjs";

const MARK = "PROXY_ON_MARK";
let sshd: TestSshd | undefined;

beforeAll(async () => {
  sshd = await startSshd();
}, 60_000);
afterAll(async () => {
  await sshd?.stop();
}, 60_000);

describe("acp-terminal proxy --on ssh://", () => {
  it("serves the agent's terminals over ssh: every conformance check passes", async () => {
    const mark = randomUUID();
    const dir = await mkdtemp(path.join(tmpdir(), "proxy-on-"));
    const report = path.join(dir, "report.json");
    const editor = await startProxyEditor({
      proxyArgs: ["--yes", "--verbose", "--on", "ssh://acp-test", "--cwd", "/tmp"],
      agent: [process.execPath, CONFORMANCE_AGENT, "--report", report],
      env: { ...process.env, ACP_TERMINAL_SSH_COMMAND: sshd!.sshCommand.join(" "), [MARK]: mark },
    });
    try {
      const sessionId = await editor.newSession("/tmp");
      expect(await editor.prompt(sessionId, "check")).toBe("end_turn");
      const { checks, summary } = JSON.parse(await readFile(report, "utf8")) as {
        checks: Array<{ id: string; status: string; detail: string }>;
        summary: { failed: number };
      };
      expect(checks.filter((c) => c.status !== "pass").map((c) => `${c.id}: ${c.detail}`)).toEqual(
        [],
      );
      expect(summary.failed).toBe(0);
      expect(editor.stderr()).toContain("commands run on ssh://acp-test");
      expect(editor.received.some((l) => l.includes(`"type":"terminal"`))).toBe(false);
    } finally {
      await editor.close();
      await rm(dir, { recursive: true, force: true });
      expect(await leftAfterEnd(() => processesWithEnv(MARK, mark))).toEqual([]);
    }
  }, 120_000);

  it("runs each command through ssh, and shows it in the tool call", async () => {
    const mark = randomUUID();
    const editor = await startProxyEditor({
      proxyArgs: ["--yes", "--on", "ssh://acp-test", "--cwd", "/tmp"],
      env: { ...process.env, ACP_TERMINAL_SSH_COMMAND: sshd!.sshCommand.join(" "), [MARK]: mark },
    });
    try {
      const sessionId = await editor.newSession("/tmp");
      await editor.prompt(sessionId, 'run echo "ssh from ${SSH_CONNECTION%% *}"');
      const shown = editor.updates().filter((u) => u["toolCallId"] === "call-1" && "content" in u);
      expect(JSON.stringify(shown.at(-1))).toContain("ssh from 127.0.0.1");
    } finally {
      await editor.close();
      expect(await leftAfterEnd(() => processesWithEnv(MARK, mark))).toEqual([]);
    }
  }, 60_000);
});
