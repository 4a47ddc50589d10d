/**
 * --sandbox against the public adapters replayed (claude-agent-acp 0.101.0, codex-acp 2.6.0,
 * recorded by test/adapters/record-cli.mjs): they run their commands themselves, where the
 * sandbox cannot reach, and the CLI says so, at start when it knows and else at the first
 * command they ask about; --verbose never claims the sandbox for those commands.
 */
import { mkdirSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { run } from "./replay-run.js";

beforeAll(() => mkdirSync("/tmp/acp-recording/project", { recursive: true }));

const WARNING =
  /acp-terminal: warning: --sandbox read-only does not confine the commands (.+) runs itself .*run the agent itself in a sandbox/;

describe("--sandbox and the commands the agent runs itself, replayed", () => {
  it("claude-commands-v1-meta: the warning comes with the first command the agent asks about, once, and --verbose scopes the containment and sandbox lines", async () => {
    const { done, err } = await run("claude-commands-v1-meta", [
      "--protocol",
      "v1-meta",
      "--sandbox",
      "read-only",
      "--verbose",
    ]);
    expect(await done).toBe(ExitCode.ok);
    const lines = err.text.split("\n");
    const warnings = lines.filter((line) => WARNING.test(line));
    expect(warnings).toHaveLength(1);
    expect(WARNING.exec(warnings[0]!)?.[1]).toBe("the agent");
    const sandboxLine = lines.find((line) => line.startsWith("acp-terminal: sandbox: read-only"));
    const containmentLine = lines.find((line) => line.startsWith("acp-terminal: containment: "));
    expect(containmentLine).toMatch(
      /in force for acp-terminal's terminals only, not for commands the agent runs itself$/,
    );
    expect(sandboxLine).toMatch(
      /in force for acp-terminal's terminals only, not for commands the agent runs itself$/,
    );
  });

  it("claude-commands-v1-meta: a known agent's name says it at start, before any request", async () => {
    const { done, err } = await run(
      "claude-commands-v1-meta",
      ["--protocol", "v1-meta", "--sandbox", "read-only"],
      { resolved: { ownCommands: "claude" } },
    );
    expect(await done).toBe(ExitCode.ok);
    const lines = err.text.split("\n");
    const at = lines.findIndex((line) => WARNING.test(line));
    expect(WARNING.exec(lines[at]!)?.[1]).toBe("claude");
    expect(lines.filter((line) => WARNING.test(line))).toHaveLength(1);
    expect(at).toBeLessThan(lines.findIndex((line) => line.includes("session ")));
  });

  it("codex-commands-v2: a v2 agent owns its terminals, said at start", async () => {
    const { done, err } = await run("codex-commands-v2", ["--sandbox", "read-only"]);
    expect(await done).toBe(ExitCode.ok);
    const lines = err.text.split("\n");
    const at = lines.findIndex((line) => WARNING.test(line));
    expect(WARNING.exec(lines[at]!)?.[1]).toBe("a v2 agent");
    expect(lines.filter((line) => WARNING.test(line))).toHaveLength(1);
  });

  it("claude-commands-v2: without --sandbox, nothing is said", async () => {
    const { done, err } = await run("claude-commands-v2", []);
    expect(await done).toBe(ExitCode.ok);
    expect(err.text).not.toContain("does not confine");
  });
});
