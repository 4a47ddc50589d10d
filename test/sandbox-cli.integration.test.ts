/**
 * `--sandbox` in `acp-terminal run` and `acp-terminal mcp`: stated by --verbose, the mode passed
 * on to the MCP server the CLI declares, and where bubblewrap cannot be had, said plainly with
 * nothing started (no command runs outside a sandbox that was asked for).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, killAllStarted, nodeAgent, startCli } from "./fixtures/cli-process.js";
import { withDeadline } from "./support/until.js";

const AGENT = fileURLToPath(new URL("./fixtures/approval-agent.mjs", import.meta.url));
let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "sandbox-cli-")));
});
afterEach(() => {
  expect(killAllStarted()).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

/** A PATH without bubblewrap (and nothing else: the agent and node are given by absolute path). */
const NO_BWRAP = { ...process.env, PATH: "/nonexistent" };

describe("acp-terminal run --sandbox", () => {
  it("--verbose says the sandbox in force; the command runs in it", async () => {
    const steps = [{ command: "/bin/sh", args: ["-c", `touch ${dir}/x 2>&1; echo ok`] }];
    const cli = startCli([
      "run",
      "--cwd",
      dir,
      "--yes",
      "--sandbox",
      "read-only",
      "--verbose",
      "--agent",
      nodeAgent(AGENT, "creates", JSON.stringify(steps)),
      "go",
    ]);
    const { code, stdout, stderr } = await cli.result();
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      "acp-terminal: sandbox: read-only (bubblewrap: nothing is writable but a private /tmp; no network (loopback only))",
    );
    expect(stdout).toContain("Read-only file system");
  });

  it("where bubblewrap cannot be had, says so and starts nothing (exit 1)", async () => {
    const cli = startCli(
      ["run", "--cwd", dir, "--yes", "--sandbox", "read-only", "--agent", nodeAgent(AGENT), "go"],
      { env: NO_BWRAP },
    );
    const { code, stdout, stderr } = await cli.result();
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(
      "--sandbox read-only cannot be had here: bwrap was not found on PATH: install bubblewrap",
    );
    expect(stderr).toContain(
      "Nothing was started; pass --sandbox off to run commands without a sandbox",
    );
  });

  it.each([
    [
      ["--sandbox", "strict"],
      'Invalid --sandbox: expected one of read-only, workspace-write, off, received "strict"',
    ],
    [["--sandbox-network"], "--sandbox-network needs --sandbox read-only or workspace-write"],
  ])("%j is a usage error", async (flags, message) => {
    const { code, stderr } = await startCli(["run", ...flags, "--agent", "x", "go"]).result();
    expect(code).toBe(1);
    expect(stderr).toContain(message);
  });
});

describe("acp-terminal mcp --sandbox", () => {
  it("where bubblewrap cannot be had, says so and does not serve (exit 1)", async () => {
    const child = spawn(
      process.execPath,
      [CLI, "mcp", "--workspace", dir, "--sandbox", "workspace-write", "--yes"],
      {
        env: NO_BWRAP,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await withDeadline(
      new Promise<number | null>((resolve) => child.once("close", resolve)),
      10_000,
      "acp-terminal mcp to exit",
    );
    expect(code).toBe(1);
    expect(stderr).toContain(
      "--sandbox workspace-write cannot be had here: bwrap was not found on PATH",
    );
  });
});
