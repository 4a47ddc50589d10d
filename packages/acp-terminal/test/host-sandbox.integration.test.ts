/**
 * TerminalHostOptions.sandbox, with the real bubblewrap: where a sandboxed command can write,
 * whether it reaches the network and the local services' sockets, and that it keeps the host's
 * pids and process group (no PID namespace). Fails, saying why, where bubblewrap cannot be had:
 * CI installs it (.ci/run).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, existsSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bubblewrapSupport } from "../src/sandbox/bubblewrap-support.js";
import type { SandboxOptions } from "../src/sandbox/sandbox-options.js";
import { isAlive, makeHost, outputMatching, owner, rejection } from "./host-helpers.js";
import { until } from "../../../test/support/until.js";

let workspace: string;
let outside: string;
const servers: Server[] = [];

beforeAll(() => {
  const support = bubblewrapSupport();
  if (!support.available) {
    throw new Error(`these tests need bubblewrap: ${support.reason}`);
  }
});
beforeEach(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "host-sandbox-")));
  outside = mkdtempSync("/var/tmp/host-sandbox-outside-");
});
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
  rmSync(workspace, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** Runs a shell line in a host with this sandbox; resolves with its output and exit code. */
async function sh(sandbox: SandboxOptions["mode"] | SandboxOptions, line: string, cwd = workspace) {
  const host = makeHost({ cwd: workspace, sandbox });
  const id = await host.create(owner, { command: "/bin/sh", args: ["-c", line], cwd });
  const status = await host.waitForExit(owner, id);
  return { output: host.output(owner, id).output, status };
}

describe("where a sandboxed command can write", () => {
  it("read-only: nothing but its private /tmp (not the host's), nor the workspace; TMPDIR is /tmp", async () => {
    const { output } = await sh(
      "read-only",
      `touch ${outside}/x ${workspace}/x /tmp/x 2>&1; echo "tmp=$TMPDIR"; ls /tmp`,
    );
    expect(output).toContain(`touch: cannot touch '${outside}/x': Read-only file system`);
    expect(output).toContain(`touch: cannot touch '${workspace}/x': Read-only file system`);
    expect(output).not.toContain("'/tmp/x'");
    expect(output).toContain("tmp=/tmp");
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(workspace, "x"))).toBe(false);
  });

  it("workspace-write: the workspace, not its .git nor the .git of the cwd's repository, nor outside it", async () => {
    mkdirSync(path.join(workspace, ".git"));
    mkdirSync(path.join(workspace, "sub", ".git"), { recursive: true });
    const { output } = await sh(
      "workspace-write",
      `touch x ../x .git/config ${outside}/x 2>&1; echo done`,
      path.join(workspace, "sub"),
    );
    expect(output).toContain("cannot touch '.git/config': Read-only file system");
    expect(output).toContain(`cannot touch '${outside}/x': Read-only file system`);
    expect(existsSync(path.join(workspace, "sub", "x"))).toBe(true);
    expect(existsSync(path.join(workspace, "x"))).toBe(true);
    expect(readdirSync(path.join(workspace, ".git"))).toEqual([]);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("a cwd in /tmp outside the workspace is refused: the sandbox hides the host's /tmp", async () => {
    const elsewhere = realpathSync(mkdtempSync(path.join(tmpdir(), "host-sandbox-elsewhere-")));
    try {
      const host = makeHost({ cwd: workspace, sandbox: "read-only" });
      const error = await rejection(host.create(owner, { command: "true", cwd: elsewhere }));
      expect(error.code).toBe("spawn_failed");
      expect(error.message).toContain(`the cwd ${elsewhere} is in /tmp, /run, /dev`);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("the network and local services", () => {
  async function listen(where: string | number): Promise<string> {
    const server = createServer((socket) => socket.end("hello\n"));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(where as number, "127.0.0.1", resolve));
    const address = server.address();
    return typeof address === "object" && address !== null ? String(address.port) : String(where);
  }
  const connect = (target: string) =>
    `${process.execPath} -e 'require("net").connect(${target}).on("data", d => process.stdout.write("got " + d)).on("error", e => console.log(e.code))'`;

  it("no network by default: a server on the host's loopback is out of reach; network: true reaches it", async () => {
    const port = await listen(0);
    expect((await sh("read-only", connect(port))).output).toBe("ECONNREFUSED\n");
    expect((await sh({ mode: "read-only", network: true }, connect(port))).output).toBe(
      "got hello\n",
    );
  });

  it("a service's socket under /run is hidden, network or not", async () => {
    const dir = [`/run/user/${process.getuid?.()}`, "/run"]
      .map((runDir) => {
        try {
          return mkdtempSync(path.join(runDir, "acp-probe-"));
        } catch {
          return undefined; // not writable here: the next one
        }
      })
      .find((made) => made !== undefined);
    if (dir === undefined) {
      throw new Error("no writable directory under /run to put a socket in");
    }
    const socket = path.join(dir, "service.sock");
    try {
      const server = createServer((s) => s.end("hello\n"));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      expect((await sh("off", connect(JSON.stringify(socket)))).output).toBe("got hello\n");
      for (const sandbox of ["read-only", { mode: "read-only", network: true }] as const) {
        expect((await sh(sandbox, connect(JSON.stringify(socket)))).output).toBe("ENOENT\n");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("pids and process groups stay the host's", () => {
  it("a command's $$ is a host pid another sandboxed terminal can signal, and kill() stops the sandboxed group", async () => {
    const host = makeHost({ cwd: workspace, sandbox: "read-only" });
    const sleeper = await host.create(owner, {
      command: "/bin/sh",
      args: ["-c", "echo pid=$$; exec sleep 60"],
    });
    const pid = Number((await outputMatching(host, sleeper, /pid=(\d+)/))[1]);
    expect(isAlive(pid)).toBe(true); // the same number names it here: no PID namespace
    const killer = await host.create(owner, { command: "kill", args: [String(pid)] });
    expect(await host.waitForExit(owner, killer)).toEqual({ exitCode: 0, signal: null });
    await until(() => !isAlive(pid), { message: `pid ${pid} to be gone` });
    const other = await host.create(owner, {
      command: "/bin/sh",
      args: ["-c", "echo pid=$$; exec sleep 60"],
    });
    const otherPid = Number((await outputMatching(host, other, /pid=(\d+)/))[1]);
    await host.kill(owner, other);
    await until(() => !isAlive(otherPid), {
      message: `pid ${otherPid} to be killed with its group`,
    });
  });

  it("a PTY command runs sandboxed too", async () => {
    const host = makeHost({ cwd: workspace, sandbox: "read-only" });
    const id = await host.create(owner, {
      command: "/bin/sh",
      args: ["-c", `test -t 0 && touch ${outside}/x 2>&1 || echo not-a-tty`],
      pty: true,
    });
    await host.waitForExit(owner, id);
    expect(host.output(owner, id).output).toContain("Read-only file system");
  });
});

describe("host.sandbox", () => {
  it("states the mode in force, the network and the mechanism", () => {
    expect(makeHost().sandbox).toMatchObject({ mode: "off", network: true, mechanism: null });
    expect(makeHost({ cwd: workspace, sandbox: "workspace-write" }).sandbox).toMatchObject({
      mode: "workspace-write",
      network: false,
      mechanism: "bubblewrap",
      workspace,
    });
  });

  it("refuses a sandbox option it does not know, naming it", () => {
    expect(() => makeHost({ sandbox: "strict" as "off" })).toThrow(/options\.sandbox/);
    expect(() => makeHost({ sandbox: { mode: "read-only", workspace: "rel" } })).toThrow(
      /options\.sandbox\.workspace/,
    );
  });
});
