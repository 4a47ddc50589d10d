/**
 * The `acp-terminal run` binary as a user runs it, against fixture agents over real stdio:
 * rendering, --json, permissions, --agent-log, and the exit codes.
 */
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURE_AGENT, killAllStarted, nodeAgent, REPO, runCli } from "./fixtures/cli-process.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

const fixture = (mode: string) => nodeAgent(FIXTURE_AGENT, mode);

describe("acp-terminal run", () => {
  it("prints the agent's text and exits 0 on end_turn", async () => {
    const { code, stdout, stderr } = await runCli([
      "run",
      "--agent",
      fixture("echo"),
      "hello",
      "world",
    ]);
    expect(stdout).toBe("echo: hello world\n");
    // The agent and the session said at start, then the summary.
    expect(stderr).toMatch(
      /^acp-terminal: the agent · ACP v1 \(v1-meta\)\nacp-terminal: session \S+ \(new\)\n── end_turn · no terminals · \d+(\.\d)? m?s · exit code 0\n$/,
    );
    expect(code).toBe(0);
  });

  it("shows a terminal embedded in a tool call, with its output and exit status after release", async () => {
    const { code, stdout } = await runCli(["run", "--yes", "--agent", fixture("terminal"), "go"]);
    expect(stdout).toBe(
      [
        "▸ print two lines [in_progress]",
        "  │ first",
        "  │ second",
        "✓ print two lines [completed]",
        "  └ exit 3",
        "exit code 3",
        "",
      ].join("\n"),
    );
    expect(code).toBe(0);
  });

  it("--json writes only JSON lines: session updates, terminal events, and the result", async () => {
    const { code, stdout } = await runCli([
      "run",
      "--yes",
      "--json",
      "--agent",
      fixture("terminal"),
      "go",
    ]);
    const lines = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const events = lines.filter((l) => l.type === "terminal").map((l) => l.event);
    expect(events).toEqual(["create", "output", "exit", "release"]);
    expect(lines.find((l) => l.event === "output")).toMatchObject({ output: "first\nsecond\n" });
    expect(lines.find((l) => l.event === "exit")).toMatchObject({
      exitStatus: { exitCode: 3, signal: null },
    });
    const updates = lines
      .filter((l) => l.type === "session_update")
      .map((l) => (l.update as { sessionUpdate: string }).sessionUpdate);
    expect(updates).toEqual(["tool_call", "tool_call_update", "agent_message_chunk"]);
    expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "end_turn", exitCode: 0 });
    expect(code).toBe(0);
  });

  it("--pty runs the agent's terminals in a pseudo-terminal", async () => {
    const { code, stdout } = await runCli([
      "run",
      "--yes",
      "--pty",
      "--json",
      "--agent",
      fixture("terminal"),
      "go",
    ]);
    const lines = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((l) => l.event === "create")).toMatchObject({ pty: true });
    expect(
      lines
        .filter((l) => l.event === "output")
        .map((l) => l.output)
        .join(""),
    ).toBe("first\r\nsecond\r\n");
    expect(code).toBe(0);
  });

  it("--pty shows a terminal's lines as its screen does (through the terminal emulator): a bar redrawn with \\r and ESC[2K is one line, and a line rewritten after ESC[1A keeps its place", async () => {
    const script =
      "printf 'download 10%%\\rdownload 50%%\\r\\033[2Kdownload done\\nstep one\\nstep two\\033[1A\\r\\033[2Kstep 1 ok\\033[1B\\r\\n'";
    const { code, stdout } = await runCli([
      "run",
      "--yes",
      "--pty",
      "--agent",
      nodeAgent(FIXTURE_AGENT, "terminal", script),
      "go",
    ]);
    expect(stdout).toBe(
      [
        "▸ print two lines [in_progress]",
        "✓ print two lines [completed]",
        "  │ download done",
        "  │ step 1 ok",
        "  │ step two",
        "  └ exit 0",
        "exit code 0",
        "",
      ].join("\n"),
    );
    expect(code).toBe(0);
  });

  it("--cwd is the session's cwd and the terminals' default cwd", async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), "cli-cwd-")));
    try {
      const { code, stdout } = await runCli([
        "run",
        "--yes",
        "--cwd",
        path.relative(REPO, dir),
        "--agent",
        fixture("cwd"),
        "go",
      ]);
      expect(stdout).toBe(`session cwd ${dir}; terminal ran in ${dir}\n`);
      expect(code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects a permission request without --yes and says how to allow it", async () => {
    const { code, stdout, stderr } = await runCli(["run", "--agent", fixture("permission"), "go"]);
    // The tool call the request is about (announced nowhere else): when asked, and at the turn's end.
    expect(stdout).toBe("▸ rm -rf build [pending]\npermission: reject\n▸ rm -rf build [pending]\n");
    expect(stderr).toContain('Permission denied for "rm -rf build": pass --yes to allow');
    expect(code).toBe(0);
  });

  it("--yes allows a permission request", async () => {
    const { stdout } = await runCli(["run", "--yes", "--agent", fixture("permission"), "go"]);
    expect(stdout).toBe("▸ rm -rf build [pending]\npermission: allow\n▸ rm -rf build [pending]\n");
  });

  it("--agent-log sends the agent's stderr to a file", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cli-log-"));
    try {
      const log = path.join(dir, "agent.log");
      const { code, stderr } = await runCli([
        "run",
        "--agent-log",
        log,
        "--agent",
        `${nodeAgent("-e", 'console.error("agent says hi"); process.exit(1)')}`,
        "go",
      ]);
      expect(code).toBe(4);
      expect(await readFile(log, "utf8")).toBe("agent says hi\n");
      expect(stderr).not.toContain("agent says hi");
      expect(stderr).toContain(`Agent exited with code 1 before answering initialize; see ${log}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("prints --help with the exit codes, and --version", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('acp-terminal run --agent "<command line>"');
    expect(help.stdout).toContain("5  --timeout elapsed");
    const version = await runCli(["--version"]);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
