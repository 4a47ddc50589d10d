/**
 * Exit code 1 of `acp-terminal run`: usage errors, each one clear line, found before or while
 * launching the agent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURE_AGENT, killAllStarted, nodeAgent, runCli } from "./fixtures/cli-process.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

const fixture = (mode: string) => nodeAgent(FIXTURE_AGENT, mode);

describe("acp-terminal run usage errors (exit 1)", () => {
  it("1 with one clear line for a usage error", async () => {
    const { code, stdout, stderr } = await runCli(["run", "--agent", fixture("echo")]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "Missing prompt: give it as the last argument, on stdin, or with -f FILE (stdin ended without one)\n",
    );
  });

  it("1 when --cwd or --agent-log cannot be used", async () => {
    const cwd = await runCli(["run", "--cwd", "/no/such/dir", "--agent", fixture("echo"), "go"]);
    expect(cwd.stderr).toBe(
      'Invalid --cwd: expected an existing directory, received "/no/such/dir"\n',
    );
    expect(cwd.code).toBe(1);
    const log = await runCli([
      "run",
      "--agent-log",
      "/no/such/dir/agent.log",
      "--agent",
      fixture("echo"),
      "go",
    ]);
    expect(log.stderr).toBe(
      'Invalid --agent-log: cannot write to "/no/such/dir/agent.log" (ENOENT)\n',
    );
    expect(log.code).toBe(1);
  });

  it("1 when the agent command does not exist", async () => {
    const { code, stderr } = await runCli(["run", "--agent", "no-such-agent-xyz --acp", "go"]);
    expect(stderr).toBe("Agent command not found: no-such-agent-xyz\n");
    expect(code).toBe(1);
    const json = await runCli(["run", "--json", "--agent", "no-such-agent-xyz --acp", "go"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      type: "result",
      exitCode: 1,
      error: "Agent command not found: no-such-agent-xyz",
    });
    expect(json.code).toBe(1);
  });

  it("1 when the shell cannot find the agent command behind shell syntax", async () => {
    const { code, stderr } = await runCli(["run", "--agent", "FOO=1 no-such-agent-xyz", "go"]);
    expect(stderr).toContain(
      'Agent command not found in "FOO=1 no-such-agent-xyz"; the shell said:',
    );
    expect(code).toBe(1);
  });
});
