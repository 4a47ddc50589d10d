/**
 * `acp-terminal run --protocol v2` against a hostile agent (fixtures/v2-hostile-agent.mjs, raw
 * JSON-RPC lines over real stdio): whatever the agent does to the connection, the run ends within
 * a bounded time with a message that says what happened, and the agent is stopped.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { killAllStarted, nodeAgent, startCli, track } from "./fixtures/cli-process.js";
import { isAlive } from "./support/processes.js";
import { until } from "./support/until.js";

const HOSTILE = fileURLToPath(new URL("./fixtures/v2-hostile-agent.mjs", import.meta.url));
const hostile = (...args: string[]) => nodeAgent(HOSTILE, ...args);

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

function agentPid(stderr: string): number {
  const pid = Number(/v2-hostile: pid (\d+)/.exec(stderr)?.[1]);
  track(pid);
  return pid;
}

/** Starts the CLI on the hostile agent and tracks the agent's pid at once: a hung run leaves no orphan. */
async function startOnHostile(...agentArgs: string[]) {
  const cli = startCli(["run", "--protocol", "v2", "--agent", hostile(...agentArgs), "go"]);
  const [, pid] = await cli.waitForStderr(/v2-hostile: pid (\d+)/);
  track(Number(pid));
  return cli;
}

describe("--protocol v2 against a hostile agent", () => {
  it("an agent that closes its stdout mid-turn and keeps running: the run ends at once saying the connection closed during the turn, and the agent is stopped", async () => {
    const cli = await startOnHostile("close-stdout");
    await cli.waitForStderr(/v2-hostile: stdout closed/);
    const started = performance.now();
    const { code, stderr } = await cli.result(10_000);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(stderr).toContain(
      "The agent's connection closed during the turn (ACP connection closed) while the agent still ran; it was stopped; see its stderr above",
    );
    expect(code).toBe(4);
    await until(() => !isAlive(agentPid(stderr)), { message: "the agent stopped" });
  });

  it("an agent message over the SDK's 32 MiB limit mid-turn: the run ends saying the limit was exceeded, and the agent is stopped", async () => {
    const cli = await startOnHostile("oversize", "25");
    const { code, stderr } = await cli.result(30_000);
    expect(stderr).toContain(
      "The agent's connection closed during the turn (Incoming ACP data exceeds the configured 33554432 byte limit)",
    );
    expect(code).toBe(4);
    await until(() => !isAlive(agentPid(stderr)), { message: "the agent stopped" });
  });

  it("a terminal/cancel refused with a 100,000-character message: the notice quotes at most 500 characters of it", async () => {
    const cli = await startOnHostile("refuse-cancel", "100000");
    await cli.waitForStderr(/v2-hostile: ready/);
    cli.child.kill("SIGINT");
    const { code, stderr } = await cli.result();
    const notice = /acp-terminal: terminal\/cancel for t1 refused: (.*)\n/.exec(stderr);
    const quoted = /^n+/.exec(notice?.[1] ?? "")?.[0].length ?? 0;
    expect(quoted).toBeGreaterThan(100);
    expect(quoted).toBeLessThanOrEqual(500);
    expect(stderr.length).toBeLessThan(10_000);
    expect(code).toBe(3);
    await until(() => !isAlive(agentPid(stderr)), { message: "the agent stopped" });
  });

  it("a terminal/cancel never answered: after the 1 s wait the CLI says it had no answer, cancels the turn, and does not call it refused", async () => {
    const cli = await startOnHostile("ignore-cancel");
    await cli.waitForStderr(/v2-hostile: ready/);
    cli.child.kill("SIGINT");
    const { code, stderr } = await cli.result();
    expect(stderr).toContain(
      "acp-terminal: terminal/cancel for t1: no answer within 1 s; cancelling the turn",
    );
    expect(stderr).not.toContain("refused");
    expect(code).toBe(3);
    await until(() => !isAlive(agentPid(stderr)), { message: "the agent stopped" });
  });

  it("an agent SIGKILLed mid-turn: the run ends saying the agent ended during the turn, not that its connection closed while it still ran", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { code, stderr } = await (await startOnHostile("sigkill")).result();
      expect(stderr).toMatch(/Agent (was killed by SIGKILL|exited with code 137) during the turn/);
      expect(stderr).not.toContain("still ran");
      expect(code).toBe(4);
    }
  });
});
