/**
 * Terminals in containers, against a real Docker engine (test/support/dockerd.ts: the one
 * DOCKER_HOST reaches, else a private dockerd) and an image imported from busybox and perl:
 * `docker://CONTAINER` (exec into a running one) and `docker-image://IMAGE` (a container per
 * session, removed at its end, the workspace mounted). Container processes are this machine's
 * too, so a marker in their environment counts what is left.
 */
import { randomUUID } from "node:crypto";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DockerImageExecutor } from "../src/executors/docker.js";
import { processesWithEnv } from "../../../test/support/processes.js";
import { startDocker, TEST_IMAGE, type TestDocker } from "../../../test/support/dockerd.mjs";
import { until, withDeadline } from "../../../test/support/until.js";
import {
  fixture,
  makeHost,
  node,
  otherSession,
  outputMatching,
  owner,
  rejection,
} from "./host-helpers.js";

let engine: TestDocker;
const container = `acp-test-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  engine = await startDocker({ images: [TEST_IMAGE] });
  process.env.DOCKER_HOST = engine.dockerHost;
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
}, 120_000);
afterAll(async () => {
  await engine?.docker("rm", "-f", container).catch(() => undefined);
  delete process.env.DOCKER_HOST;
  await engine?.stop();
}, 60_000);

function marker() {
  const value = randomUUID();
  return {
    value,
    env: [{ name: "ACP_TEST_MARK", value }],
    left: () => processesWithEnv("ACP_TEST_MARK", value),
  };
}

const ourContainers = async () =>
  (await engine.docker("ps", "-a", "--filter", "name=acp-terminal-", "--format", "{{.Names}}"))
    .split("\n")
    .filter(Boolean);

describe("docker executor", () => {
  it("runs commands in the running container, with exact statuses, ordered output, stdin and a resizable PTY", async () => {
    const host = makeHost({ on: `docker://${container}`, cwd: "/tmp" });
    const run = async (command: string) => {
      const id = await host.create(owner, { command });
      const status = await host.waitForExit(owner, id);
      return { status, output: host.output(owner, id).output };
    };
    expect(
      await run("cat /proc/1/cmdline | tr '\\0' ' '; echo; echo out; echo err >&2; exit 7"),
    ).toEqual({
      status: { exitCode: 7, signal: null },
      output: "sleep 100000 \nout\nerr\n",
    });
    expect((await run("kill -INT $$")).status).toEqual({ exitCode: null, signal: "SIGINT" });
    expect((await run("trap 'exit 130' INT; kill -INT $$; sleep 5")).status).toEqual({
      exitCode: 130,
      signal: null,
    });

    const cat = await host.create(owner, { command: "cat", args: [], stdin: true });
    await host.write(owner, cat, "into the container\n", { eof: true });
    expect(await host.waitForExit(owner, cat)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, cat).output).toBe("into the container\n");

    const pty = await host.create(owner, {
      command: "stty size; read line; stty size",
      pty: { cols: 100, rows: 30 },
    });
    await outputMatching(host, pty, /30 100/);
    host.resize(owner, pty, 120, 40);
    await host.write(owner, pty, "\r");
    expect(await host.waitForExit(owner, pty)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, pty).output).toMatch(/40 120/);

    expect((await rejection(host.create(owner, { command: "pwd", cwd: "/no/such" }))).message).toBe(
      `Working directory does not exist on docker://${container}: /no/such`,
    );
  });

  it("kills the group in the container on kill, and what left it on release", async () => {
    const host = makeHost({ on: `docker://${container}`, cwd: "/tmp" });
    const mark = marker();
    const id = await host.create(owner, {
      command: "sleep 300 & setsid sleep 300 & echo started; wait",
      env: mark.env,
    });
    await outputMatching(host, id, /started/);
    await until(() => mark.left().length === 3, { message: "sh, sleep and setsid's sleep" });
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(mark.left()).toHaveLength(1);
    await host.release(owner, id);
    await until(() => mark.left().length === 0, { message: "the setsid'd sleep to be swept" });
  });

  it("gives each session a container of its own from the image, with the workspace mounted, removed at the session's end", async () => {
    const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "acp-workspace-")));
    writeFileSync(path.join(workspace, "hello.txt"), "from the host\n");
    const executor = new DockerImageExecutor(TEST_IMAGE, {
      workspace: { source: workspace, target: "/work" },
      network: "none",
    });
    const host = makeHost({ on: executor, cwd: workspace });
    try {
      const read = async (who: typeof owner) => {
        const id = await host.create(who, { command: "pwd; cat hello.txt; hostname" });
        expect(await host.waitForExit(who, id)).toEqual({ exitCode: 0, signal: null });
        return host.output(who, id).output.split("\n");
      };
      const [cwd, text, first] = await read(owner);
      expect([cwd, text]).toEqual(["/work", "from the host"]);
      const [, , second] = await read(otherSession);
      expect(second).not.toBe(first);
      expect(await ourContainers()).toHaveLength(2);
      await host.releaseAll({ connectionId: owner.connectionId, sessionId: owner.sessionId });
      expect(await ourContainers()).toHaveLength(1);
    } finally {
      await host.dispose();
      await executor.dispose();
      rmSync(workspace, { recursive: true, force: true });
    }
    expect(await ourContainers()).toEqual([]);
  });

  it("mounts a workspace read-only when the target says ro: a write there fails, a read does not", async () => {
    const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "acp-workspace-")));
    writeFileSync(path.join(workspace, "hello.txt"), "from the host\n");
    const host = makeHost({
      on: `docker-image://${TEST_IMAGE}?workspace=${workspace}:/work:ro&network=none`,
      cwd: workspace,
    });
    try {
      const id = await host.create(owner, { command: "cat hello.txt; touch made-here" });
      expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 1, signal: null });
      expect(host.output(owner, id).output).toMatch(
        /^from the host\ntouch: made-here: Read-only file system\n$/,
      );
      expect(readdirSync(workspace)).toEqual(["hello.txt"]);
    } finally {
      await host.dispose();
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("ends terminals with a note when the engine connection drops, and leaves nothing in the container", async () => {
    const host = makeHost({ on: `docker://${container}`, cwd: "/tmp" });
    const mark = marker();
    const ids = await Promise.all([
      host.create(owner, { command: "sleep 300; echo no", env: mark.env }),
      host.create(owner, { command: "sleep 300; echo no", env: mark.env, pty: true }),
    ]);
    await until(() => mark.left().length >= 2, { message: "both sleeps" });
    const agents = processesWithCommand("docker\0exec\0-i\0" + container + "\0sh\0-c");
    expect(agents).toHaveLength(1);
    process.kill(agents[0]!, "SIGKILL");
    for (const id of ids) {
      expect(
        await withDeadline(host.waitForExit(owner, id), 10_000, "exit after the drop"),
      ).toEqual({
        exitCode: null,
        signal: "SIGKILL",
      });
      const read = host.output(owner, id);
      expect(read.notices).toEqual([expect.stringMatching(/lost the connection to docker:\/\//)]);
      expect(read.output).not.toContain("acp-terminal");
    }
    await until(() => mark.left().length === 0, {
      timeoutMs: 10_000,
      message: "the agent's cleanup",
    });
  });

  it("stops and removes the session's container when the host is SIGKILLed", async () => {
    const mark = marker();
    const child = spawn(
      node,
      [
        fixture("remote-host-dies.mjs"),
        `docker-image://${TEST_IMAGE}?network=none`,
        "sleep 300",
        mark.value,
      ],
      {
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, DOCKER_HOST: engine.dockerHost },
      },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    try {
      await until(() => out.includes("ready"), {
        timeoutMs: 20_000,
        message: "the host to start both",
      });
      // The helper answers a create once the command is forked; its exec, carrying the marker, may come after.
      await until(() => mark.left().length === 2, {
        timeoutMs: 10_000,
        message: "both commands to run in the container",
      });
      expect(await ourContainers()).toHaveLength(1);
    } finally {
      child.kill("SIGKILL");
    }
    await until(() => mark.left().length === 0, {
      timeoutMs: 15_000,
      message: "the container to stop",
    });
    await until(async () => (await ourContainers()).length === 0, {
      timeoutMs: 15_000,
      message: "--rm",
    });
  });
});

/** Local processes whose NUL-separated command line contains `text`. */
function processesWithCommand(text: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}
