/**
 * The conformance agent's v1 battery through each executor, driven by `acp-terminal run --on`
 * (`--protocol v1`: offered v2, the agent would run its v2 battery) against a real sshd, a real
 * Docker engine, Podman and the Dev Container CLI (test/support/); what the capability tells an
 * agent about where commands run; and `acp-terminal mcp --on` running a tool call over ssh. One
 * sshd, one engine and one Podman store for the whole file.
 */
import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONFORMANCE_AGENT,
  FIXTURE_AGENT,
  killAllStarted,
  nodeAgent,
  runCli,
} from "./fixtures/cli-process.js";
import { connectStdio, type ToolCallResult } from "./support/mcp-clients.js";
import { CLI, markedEnv } from "./support/mcp-server.js";
import {
  devcontainerBin,
  makeDevContainerFolder,
  REMOTE_ENV,
  REMOTE_UID,
  REMOTE_USER,
  REMOTE_WORKSPACE,
} from "./support/devcontainer.mjs";
import { DEBIAN_IMAGE, startDocker, TEST_IMAGE, type TestDocker } from "./support/dockerd.mjs";
import { busyboxAppletDir, busyboxBinary } from "./support/images.mjs";
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
let devcontainer: { folder: string; remove: () => Promise<void> };
const container = `acp-conformance-${randomUUID().slice(0, 8)}`;
const debian = `acp-conformance-debian-${randomUUID().slice(0, 8)}`;
const savedPath = process.env.PATH;
let busyboxPath: string;
beforeAll(async () => {
  process.env.PATH = `${devcontainerBin()}${path.delimiter}${savedPath}`;
  busyboxPath = busyboxAppletDir(await mkdtemp(path.join(tmpdir(), "acp-busybox-")));
  [sshd, engine, podman] = await Promise.all([
    startSshd({ busyboxPath }),
    startDocker({ images: [TEST_IMAGE, DEBIAN_IMAGE] }),
    startPodman({ images: [TEST_IMAGE, DEBIAN_IMAGE] }),
  ]);
  for (const [name, value] of Object.entries(podman.env)) {
    if (name.startsWith("CONTAINERS_")) {
      process.env[name] = value;
    }
  }
  process.env.ACP_TERMINAL_SSH_COMMAND = sshd.sshCommand.join(" ");
  process.env.DOCKER_HOST = engine.dockerHost;
  // The agent's temporary directories (cwd-honoured) are this machine's /tmp: shared with the container.
  const detached = ["run", "-d", "--network", "none", "-v", "/tmp:/tmp"];
  await engine.docker(...detached, "--name", container, TEST_IMAGE, "sleep", "100000");
  await engine.docker(...detached, "--name", debian, DEBIAN_IMAGE, "sleep", "100000");
  await podman.podman(...detached, "--name", container, TEST_IMAGE, "sleep", "100000");
  await podman.podman(...detached, "--name", debian, DEBIAN_IMAGE, "sleep", "100000");
  devcontainer = await makeDevContainerFolder(DEBIAN_IMAGE);
}, 180_000);
afterAll(async () => {
  expect(killAllStarted()).toEqual([]);
  await engine?.docker("rm", "-f", container, debian).catch(() => undefined);
  if (devcontainer) {
    const label = `devcontainer.local_folder=${devcontainer.folder}`;
    const ids = await engine.docker("ps", "-aq", "--filter", `label=${label}`).catch(() => "");
    const started = ids.split("\n").filter(Boolean);
    if (started.length > 0) {
      await engine.docker("rm", "-f", ...started).catch(() => undefined);
    }
    await devcontainer.remove();
  }
  delete process.env.CONTAINERS_CONF;
  delete process.env.CONTAINERS_STORAGE_CONF;
  await podman?.stop();
  delete process.env.ACP_TERMINAL_SSH_COMMAND;
  delete process.env.DOCKER_HOST;
  process.env.PATH = savedPath;
  await Promise.all([sshd?.stop(), engine?.stop()]);
  if (busyboxPath) {
    await rm(busyboxPath, { recursive: true, force: true });
  }
}, 60_000);

/**
 * The battery through `on`, the CLI's cwd `cwd`. With `uid`, the agent runs as that user (its
 * temporary directories are then that user's, as when this machine's user and a dev container's
 * remoteUser share a uid).
 */
async function battery(on: string, cwd = "/tmp", uid?: number): Promise<Report> {
  const dir = await mkdtemp(path.join(tmpdir(), "conformance-"));
  try {
    const report = path.join(dir, "report.json");
    let agent = nodeAgent(CONFORMANCE_AGENT, "--report", report);
    if (uid !== undefined) {
      await chmod(dir, 0o777);
      agent = `setpriv --reuid=${uid} --regid=${uid} --clear-groups -- ${agent}`;
    }
    const { code, stderr } = await runCli(
      ["run", "--protocol", "v1", "--yes", "--on", on, "--cwd", cwd, "--agent", agent, "check"],
      90_000,
    );
    expect(stderr).toMatch(/── end_turn · \d+ terminals/);
    expect(code).toBe(0);
    return JSON.parse(await readFile(report, "utf8")) as Report;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface ScriptResult {
  executor: { kind: string; target: string; os?: string; shell?: string } | null;
  steps: { output: string; exitStatus: { exitCode: number | null; signal: string | null } }[];
}

/**
 * The fixture agent's `script` turn through `on`: each command line run to its exit. `protocol`
 * v1: the CLI speaks v1 at once (its initialize follows a probe of the executor); auto: the v2
 * offer, which a v1 agent reads as its initialize.
 */
async function script(
  on: string,
  commands: string[],
  { cwd = "/tmp", protocol = "v1" }: { cwd?: string; protocol?: "v1" | "auto" } = {},
): Promise<ScriptResult> {
  const steps = JSON.stringify(commands.map((command) => ({ command, wait: true })));
  const { code, stderr } = await runCli(
    [
      "run",
      ...(protocol === "v1" ? ["--protocol", "v1"] : []),
      ...["--yes", "--on", on, "--cwd", cwd],
      ...["--agent", nodeAgent(FIXTURE_AGENT, "script", steps), "go"],
    ],
    60_000,
  );
  const line = /^RESULT (.*)$/m.exec(stderr);
  if (code !== 0 || !line) {
    throw new Error(`acp-terminal run --on ${on} exited ${code} without a result:\n${stderr}`);
  }
  return JSON.parse(line[1] ?? "") as ScriptResult;
}

const notPassed = (report: Report) =>
  report.checks.filter((c) => c.status !== "pass").map((c) => `${c.id}: ${c.status}: ${c.detail}`);

// The batteries and the capability checks run at once: a battery mostly waits (graces, timeouts),
// and each has a target (and temporary directories) of its own.
describe.concurrent("the conformance battery through each executor", () => {
  it("passes every check over ssh", async () => {
    const report = await battery("ssh://acp-test");
    expect(notPassed(report)).toEqual([]);
    expect(report.summary.failed).toBe(0);
  }, 120_000);

  it("passes every check over ssh where sh and every utility is busybox's (as on Alpine)", async () => {
    // The helper (the command line's parent) and the utilities are busybox; a command line runs
    // in /bin/sh, as the capability says (no bash on that PATH).
    const { executor, steps } = await script("ssh://acp-busybox", [
      "readlink /proc/$PPID/exe; command -v mkfifo",
    ]);
    expect(executor).toMatchObject({ kind: "ssh", shell: "/bin/sh" });
    expect(steps[0]?.output).toBe(`${realpathSync(busyboxBinary())}\n${busyboxPath}/mkfifo\n`);
    const report = await battery("ssh://acp-busybox");
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

  it("passes every check in a Podman container of the Debian-slim-like image, the two that watch a pid skipped", async () => {
    const report = await battery(`podman://${debian}`);
    expect(notPassed(report)).toEqual(pidChecks);
    expect(report.summary.failed).toBe(0);
  }, 120_000);

  it("passes every check in a container per session from an image, the two that watch a pid skipped", async () => {
    const report = await battery(`docker-image://${TEST_IMAGE}?network=none`);
    expect(notPassed(report)).toEqual(pidChecks);
    expect(report.summary.failed).toBe(0);
  }, 120_000);

  it("passes every check in a dev container as its remoteUser, the two that watch a pid skipped", async () => {
    const { folder } = devcontainer;
    const report = await battery(`devcontainer://${folder}`, folder, REMOTE_UID);
    expect(notPassed(report)).toEqual(pidChecks);
    expect(report.summary.failed).toBe(0);
  }, 120_000);
});

describe("a dev container", () => {
  it("runs commands as its remoteUser, with its remoteEnv, in its workspace path for the folder", async () => {
    const { folder } = devcontainer;
    const { steps, executor } = await script(
      `devcontainer://${folder}`,
      ['echo "$(id -un) $(id -u)|$ACP_DEV_GREETING|$(pwd)"; touch made-in-container'],
      { cwd: folder },
    );
    expect(steps).toEqual([
      {
        output: `${REMOTE_USER} ${REMOTE_UID}|${REMOTE_ENV.ACP_DEV_GREETING}|${REMOTE_WORKSPACE}\n`,
        exitStatus: { exitCode: 0, signal: null },
        pids: [],
      },
    ]);
    // The workspace path is the folder, mounted: what the command made is here, the user's.
    expect((await stat(path.join(folder, "made-in-container"))).uid).toBe(REMOTE_UID);
    expect(executor).toEqual({
      kind: "devcontainer",
      target: `devcontainer://${folder}`,
      os: "Linux",
      shell: expect.stringMatching(/\/bash$/),
    });
  }, 120_000);
});

describe.concurrent("the capability tells the agent in initialize where commands run", () => {
  it("here: kind local, this machine's OS and shell, in the default negotiation too", async () => {
    const here = {
      kind: "local",
      target: "local",
      os: "Linux",
      shell: expect.stringMatching(/\/bash$/),
    };
    expect((await script("local", [], { protocol: "auto" })).executor).toEqual(here);
    expect((await script("local", [])).executor).toEqual(here);
  }, 60_000);

  it("over ssh: the other machine's OS and shell, probed before initialize", async () => {
    const { executor } = await script("ssh://acp-test", []);
    expect(executor).toEqual({
      kind: "ssh",
      target: "ssh://acp-test",
      os: "Linux",
      shell: expect.stringMatching(/\/bash$/),
    });
  }, 60_000);

  it("over ssh in the default negotiation: kind and target, sent before any connection opens", async () => {
    const { executor } = await script("ssh://acp-test", [], { protocol: "auto" });
    expect(executor).toEqual({ kind: "ssh", target: "ssh://acp-test" });
  }, 60_000);

  it("in a busybox container: /bin/sh, as it has no bash", async () => {
    const { executor } = await script(`docker://${container}`, []);
    expect(executor).toEqual({
      kind: "docker",
      target: `docker://${container}`,
      os: "Linux",
      shell: "/bin/sh",
    });
  }, 60_000);

  it("from an image: the session's own container is the one probed, so one container starts", async () => {
    const since = new Date();
    const { executor, steps } = await script(`docker-image://${DEBIAN_IMAGE}?network=none`, [
      "echo ran",
    ]);
    expect(steps[0]?.output).toBe("ran\n");
    expect(executor).toEqual({
      kind: "docker-image",
      target: `docker-image://${DEBIAN_IMAGE}`,
      os: "Linux",
      shell: expect.stringMatching(/\/bash$/),
    });
    const started = await engine.docker(
      ...["events", "--since", since.toISOString(), "--until", new Date().toISOString()],
      ...["--filter", "event=start", "--filter", `image=${DEBIAN_IMAGE}`],
      ...["--format", "{{.Actor.Attributes.name}}"],
    );
    // The executor's containers are named acp-terminal-*; a dev container may start meanwhile.
    const ours = started.split("\n").filter((name) => name.startsWith("acp-terminal-"));
    expect(ours).toHaveLength(1);
  }, 60_000);
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
