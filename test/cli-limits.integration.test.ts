/** `acp-terminal run --max-terminals`: how many live terminals the agent's session may hold. */
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURE_AGENT, killAllStarted, nodeAgent, runCli } from "./fixtures/cli-process.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

const many = (count: number) => nodeAgent(FIXTURE_AGENT, "many", String(count));

describe("acp-terminal run terminal limits", () => {
  it("holds 64 live terminals by default and refuses the 65th, naming the limit", async () => {
    const { code, stdout } = await runCli(["run", "--yes", "--agent", many(65), "go"], 60_000);
    expect(stdout).toMatch(
      /^created 64; refused: .*64 live terminals, the most allowed \(maxTerminalsPerSession 64\)/,
    );
    expect(code).toBe(0);
  }, 90_000);

  it("--max-terminals N allows N live terminals (N-1, N, N+1 asked)", async () => {
    for (const asked of [2, 3, 4]) {
      const { stdout } = await runCli(
        ["run", "--yes", "--max-terminals", "3", "--agent", many(asked), "go"],
        30_000,
      );
      const created = Math.min(asked, 3);
      expect(stdout).toMatch(
        new RegExp(
          `^created ${created}; refused: ${asked > 3 ? ".*maxTerminalsPerSession 3" : "none"}`,
        ),
      );
    }
  }, 90_000);
});
