/**
 * Whatever way `acp-terminal run` ends — the agent crashes, --timeout, Ctrl-C (once or twice) —
 * neither the agent nor any terminal command it started may outlive it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isAlive } from "./support/processes.js";
import { until } from "./support/until.js";
import {
  FIXTURE_AGENT,
  killAllStarted,
  nodeAgent,
  pidsOf,
  startCli,
} from "./fixtures/cli-process.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

const fixture = (mode: string) => nodeAgent(FIXTURE_AGENT, mode);

async function expectAllGone(pids: number[]): Promise<void> {
  await until(() => pids.every((pid) => !isAlive(pid)), {
    timeoutMs: 3_000,
    message: `pids ${pids.join(", ")} to be gone`,
  });
}

describe("acp-terminal run leaves no processes behind", () => {
  it("when the agent crashes mid-turn: exit 4, its terminal killed", async () => {
    const cli = startCli(["run", "--yes", "--agent", fixture("crash"), "go"]);
    const { code, stderr } = await cli.result();
    const pids = pidsOf(stderr);
    expect(stderr).toContain("Agent exited with code 1 during the turn; see its stderr above");
    expect(stderr).toContain("1 terminal: 1 killed by SIGTERM");
    expect(code).toBe(4);
    await expectAllGone(pids);
  });

  it("when --timeout elapses: exit 5", async () => {
    // Long enough for a loaded machine to start the agent and its terminal before time runs out.
    const cli = startCli(["run", "--yes", "--timeout", "3", "--agent", fixture("stubborn"), "go"]);
    const { code, stderr } = await cli.result();
    expect(stderr).toContain("Timed out after 3 s (--timeout), during the turn");
    expect(code).toBe(5);
    await expectAllGone(pidsOf(stderr));
  });

  it("on Ctrl-C: cancels the turn, kills the terminal, exits 3", async () => {
    const cli = startCli(["run", "--yes", "--agent", fixture("hang"), "go"]);
    const pids = await cli.waitForPids();
    cli.child.kill("SIGINT");
    const { code, stderr } = await cli.result();
    expect(stderr).toContain("Cancelling the turn");
    expect(stderr).toContain("── cancelled ·");
    expect(code).toBe(3);
    await expectAllGone(pids);
  });

  it("on Ctrl-C twice with an agent that ignores cancel: exits 3 at once", async () => {
    // A grace far beyond the test's timeout: only the second Ctrl-C can end this run in time.
    const cli = startCli([
      "run",
      "--yes",
      "--cancel-grace",
      "600",
      "--agent",
      fixture("stubborn"),
      "go",
    ]);
    const pids = await cli.waitForPids();
    cli.child.kill("SIGINT");
    await cli.waitForStderr(/Cancelling the turn/);
    cli.child.kill("SIGINT");
    const { code, stderr } = await cli.result();
    expect(stderr).toMatch(/^Interrupted$/m);
    expect(stderr).not.toContain("did not end its turn within");
    expect(code).toBe(3);
    await expectAllGone(pids);
  });

  it("on SIGTERM: exits 3", async () => {
    const cli = startCli(["run", "--yes", "--agent", fixture("stubborn"), "go"]);
    const pids = await cli.waitForPids();
    cli.child.kill("SIGTERM");
    const { code, stderr } = await cli.result();
    expect(stderr).toContain("Stopped by SIGTERM");
    expect(code).toBe(3);
    await expectAllGone(pids);
  });

  it("after end_turn with a terminal the agent never released: exit 0", async () => {
    const cli = startCli(["run", "--yes", "--agent", fixture("leave"), "go"]);
    const { code, stderr } = await cli.result();
    expect(stderr).toContain("── end_turn · 1 terminal: 1 killed by SIGTERM");
    expect(code).toBe(0);
    await expectAllGone(pidsOf(stderr));
  });
});
