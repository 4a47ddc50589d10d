/**
 * The conformance agent's v1 battery through each executor, driven by `acp-terminal run --on`
 * (`--protocol v1`: offered v2, the agent would run its v2 battery) against a real sshd and a real Docker engine (test/support/), and `acp-terminal mcp --on`
 * running a tool call over ssh. One sshd and one engine for the whole file.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFORMANCE_AGENT, killAllStarted, nodeAgent, runCli } from "./fixtures/cli-process.js";
import { connectStdio, type ToolCallResult } from "./support/mcp-clients.js";
import { CLI, markedEnv } from "./support/mcp-server.js";
import { DEBIAN_IMAGE, startDocker, TEST_IMAGE, type TestDocker } from "./support/dockerd.mjs";
import { startPodman, type TestPodman } from "./support/podman.mjs";
import { processesWithEnv } from "./support/processes.js";
import { startSshd, type TestSshd } from "./support/sshd.mjs";

interface Report {
  checks: { id: string; name: string; kind: string; status: string; detail: string }[];
  summary: { passed: number; failed: number; skipped: number; specFailures: number };
}

let sshd: TestSshd;
let engine: TestDocker;
let podman: TestPodman;
const container = `acp-conformance-${randomUUID().slice(0, 8)}`;
const debian = `acp-conformance-debian-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  [sshd, engine, podman] = await Promise.all([startSshd(), startDocker(), startPodman()]);
  for (const [name, value] of Object.entries(podman.env)) {
    if (name.startsWith("CONTAINERS_")) {
      process.env[name] = value;
    }
  }
  process.env.ACP_TERMINAL_SSH_COMMAND = sshd.sshCommand.join(" ");
  process.env.DOCKER_HOST = engine.dockerHost;
  // The agent's temporary directories (cwd-honoured) are this machine's /tmp: shared with the container.
  await engine.docker(
    "run",
    "-d",
    "--network",
    "none",
    "-v",
    "/tmp:/tmp",
    "--name",
    container,
    TEST_IMAGE,
    "sleep",
    "100000",
  );
  const detached = ["run", "-d", "--network", "none", "-v", "/tmp:/tmp"];
  await engine.docker(...detached, "--name", debian, DEBIAN_IMAGE, "sleep", "100000");
  await podman.podman(...detached, "--name", container, TEST_IMAGE, "sleep", "100000");
}, 180_000);
afterAll(async () => {
  expect(killAllStarted()).toEqual([]);
  await engine?.docker("rm", "-f", container, debian).catch(() => undefined);
  delete process.env.CONTAINERS_CONF;
  delete process.env.CONTAINERS_STORAGE_CONF;
  await podman?.stop();
  delete process.env.ACP_TERMINAL_SSH_COMMAND;
  delete process.env.DOCKER_HOST;
  await Promise.all([sshd?.stop(), engine?.stop()]);
}, 60_000);

async function battery(on: string): Promise<Report> {
  const dir = await mkdtemp(path.join(tmpdir(), "conformance-"));
  try {
    const report = path.join(dir, "report.json");
    const { code, stderr } = await runCli(
      [
        "run",
        "--protocol",
        "v1",
        "--yes",
        "--on",
        on,
        "--cwd",
        "/tmp",
        "--agent",
        nodeAgent(CONFORMANCE_AGENT, "--report", report),
        "check",
      ],
      90_000,
    );
    expect(stderr).toMatch(/── end_turn · \d+ terminals/);
    expect(code).toBe(0);
    return JSON.parse(await readFile(report, "utf8")) as Report;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const notPassed = (report: Report) =>
  report.checks.filter((c) => c.status !== "pass").map((c) => `${c.id}: ${c.status}: ${c.detail}`);

describe("the conformance battery through each executor", () => {
  it("passes every check over ssh", async () => {
    const report = await battery("ssh://acp-test");
    expect(notPassed(report)).toEqual([]);
    expect(report.summary.failed).toBe(0);
  }, 120_000);

  // The agent runs on this machine: a container's pids are another namespace's, so the two checks
  // that watch a pid skip (the group kill in a container is checked in executor-docker's tests).
  const pidChecks = [
    expect.stringMatching(
      /^release-kills-command: skip: process \d+ is not visible from the agent/,
    ),
    expect.stringMatching(
      /^kill-reaches-grandchild: skip: process \d+ is not visible from the agent/,
    ),
  ];

  it("passes every check in a running container, the two that watch a pid skipped", async () => {
    const report = await battery(`docker://${container}`);
    expect(notPassed(report)).toEqual(pidChecks);
    expect(report.summary.failed).toBe(0);
  }, 120_000);

  it("passes every check in a Debian-slim-like container (dash, GNU coreutils), the two that watch a pid skipped", async () => {
    const report = await battery(`docker://${debian}`);
    expect(notPassed(report)).toEqual(pidChecks);
    expect(report.summary.failed).toBe(0);
  }, 120_000);

  it("passes every check in a Podman container of the busybox image, the two that watch a pid skipped", async () => {
    const report = await battery(`podman://${container}`);
    expect(notPassed(report)).toEqual(pidChecks);
    expect(report.summary.failed).toBe(0);
  }, 120_000);

  it("passes every check in a container per session from an image, the two that watch a pid skipped", async () => {
    const report = await battery(`docker-image://${TEST_IMAGE}?network=none`);
    expect(notPassed(report)).toEqual(pidChecks);
    expect(report.summary.failed).toBe(0);
  }, 120_000);
});

describe("acp-terminal mcp --on", () => {
  it("runs a tool call's command over ssh and leaves nothing there", async () => {
    const mark = randomUUID();
    const client = await connectStdio("v2", {
      command: process.execPath,
      args: [CLI, "mcp", "--yes", "--workspace", "/tmp", "--on", "ssh://acp-test"],
      env: { ...markedEnv(mark), ACP_TERMINAL_SSH_COMMAND: sshd.sshCommand.join(" ") },
    });
    try {
      const result: ToolCallResult = await client.callTool("exec", {
        command: 'echo "from ${SSH_CONNECTION%% *} in $(pwd)"',
      });
      expect(result.isError ?? false).toBe(false);
      expect(JSON.stringify(result.structuredContent)).toContain("from 127.0.0.1 in /tmp");
    } finally {
      await client.close();
    }
    expect(processesWithEnv("ACP_TERMINAL_TEST_MARK", mark)).toEqual([]);
  });

  it("refuses a --on it cannot read, naming the forms", async () => {
    const { code, stderr } = await runCli([
      "run",
      "--yes",
      "--on",
      "ftp://x",
      "--agent",
      "true",
      "hi",
    ]);
    expect(code).not.toBe(0);
    expect(stderr).toContain('Invalid --on: expected "local", "ssh://[user@]host[:port]"');
  });
});
