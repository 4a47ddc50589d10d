/**
 * `acp-terminal run` on a real TTY: permission questions are asked and answered, tool calls with
 * terminals are redrawn in place with ANSI cursor movement.
 */
import { afterEach, describe, expect, it } from "vitest";
import { withDeadline } from "./support/until.js";
import { FIXTURE_AGENT, killAllStarted, nodeAgent, track } from "./fixtures/cli-process.js";
import { startCliOnTty } from "./fixtures/cli-pty.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

describe("acp-terminal run on a TTY", () => {
  it("asks for permission and sends the option picked", async () => {
    const cli = startCliOnTty(["run", "--agent", nodeAgent(FIXTURE_AGENT, "permission"), "go"]);
    track(cli.pty.pid);
    await cli.waitFor("Choose 1-2 (Enter rejects): ");
    expect(cli.screen()).toContain(
      'The agent asks permission for "rm -rf build":\r\n  kind: execute\r\n  1) Allow once (allow_once)\r\n  2) Reject (reject_once)',
    );
    cli.pty.write("1\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    expect(cli.screen()).toContain("permission: allow");
  });

  it("draws a running tool call in place and leaves its final state", async () => {
    const cli = startCliOnTty([
      "run",
      "--yes",
      "--agent",
      nodeAgent(FIXTURE_AGENT, "terminal"),
      "go",
    ]);
    track(cli.pty.pid);
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    const screen = cli.screen();
    expect(screen).toContain("▸ print two lines [in_progress]");
    expect(screen).toMatch(
      /\x1b\[\d+F\x1b\[0J✓ print two lines \[completed\]\r\n {2}│ first\r\n {2}│ second\r\n {2}└ exit 3\r\n/,
    );
  });
});
