/**
 * Interop: an agent built on the older @zed-industries/agent-client-protocol 0.4.5 SDK uses the
 * terminal methods through `acp-terminal run` (SDK 2.x) over real stdio.
 */
import { afterEach, describe, expect, it } from "vitest";
import { killAllStarted, LEGACY_AGENT, nodeAgent, runCli } from "./fixtures/cli-process.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

describe("a 0.4.5-SDK agent through acp-terminal run", () => {
  it("creates a terminal, reads its output, waits for it, releases it", async () => {
    const { code, stdout, stderr } = await runCli([
      "run",
      "--yes",
      "--agent",
      nodeAgent(LEGACY_AGENT),
      "go",
    ]);
    expect(stdout).toBe(
      [
        "▸ legacy terminal [in_progress]",
        "  │ legacy-start",
        "  │ legacy-end",
        'first output read: "legacy-start"',
        "✓ legacy terminal [completed]",
        "  └ exit 4",
        'exit 4, output "legacy-start\\nlegacy-end\\n", truncated false',
        "",
      ].join("\n"),
    );
    expect(stderr).toMatch(/── end_turn · 1 terminal: 1 exit 4 · /);
    expect(code).toBe(0);
  });

  it("reports the same session in --json, terminal events included", async () => {
    const { code, stdout } = await runCli([
      "run",
      "--yes",
      "--json",
      "--agent",
      nodeAgent(LEGACY_AGENT),
      "go",
    ]);
    const lines = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; event?: string; output?: string });
    const events = lines.filter((l) => l.type === "terminal").map((l) => l.event);
    // Output may arrive in one chunk or several: compare with repeats collapsed.
    expect(events.filter((event, i) => event !== events[i - 1])).toEqual([
      "create",
      "output",
      "exit",
      "release",
    ]);
    expect(
      lines
        .filter((l) => l.event === "output")
        .map((l) => l.output)
        .join(""),
    ).toBe("legacy-start\nlegacy-end\n");
    expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "end_turn", exitCode: 0 });
    expect(code).toBe(0);
  });
});
