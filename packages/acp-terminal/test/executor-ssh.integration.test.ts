/**
 * Terminals on another machine over ssh, against a real sshd on a loopback port (test/support/
 * sshd.ts): the destination resolved through an ssh_config alias, exact statuses, pipes and PTYs,
 * kill and release reaching the remote group, and the faults (connection dropped, silent
 * partition, remote SIGKILL, host SIGKILL) leaving no marked process behind. "Remote" is this
 * machine, so what runs there is counted in /proc by a marker in the commands' environment.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { SshExecutor } from "../src/executors/ssh.js";
import type { TerminalOwner } from "../src/host/types.js";
import { processesWithEnv } from "../../../test/support/processes.js";
import { startSshd, type TestSshd } from "../../../test/support/sshd.mjs";
import { until, withDeadline } from "../../../test/support/until.js";
import { fixture, makeHost, node, outputMatching, owner, rejection } from "./host-helpers.js";

let sshd: TestSshd;
beforeAll(async () => {
  sshd = await startSshd();
  process.env.ACP_TERMINAL_SSH_COMMAND = sshd.sshCommand.join(" ");
});
afterAll(async () => {
  delete process.env.ACP_TERMINAL_SSH_COMMAND;
  await sshd?.stop();
});

/** A marker for one test's commands, and the env entry that puts it in their environment. */
function marker() {
  const value = randomUUID();
  return {
    value,
    env: [{ name: "ACP_TEST_MARK", value }],
    left: () => processesWithEnv("ACP_TEST_MARK", value),
  };
}

/** The parent of `pid`, or undefined once it is gone. */
function parentOf(pid: number | string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** Processes whose command line contains `text` (ssh clients, remote wrappers), or only children of `parent`. */
function localProcesses(text: string, parent?: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return (
          (parent === undefined || parentOf(entry) === parent) &&
          readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Agent directories in /tmp whose agent is gone (its socket refuses): what a dead agent left. */
function staleAgentDirectories(): string[] {
  return readdirSync("/tmp")
    .filter((name) => /^acp-terminal-[0-9a-f]{16}$/.test(name))
    .filter((name) => {
      try {
        execFileSync("perl", [
          "-MSocket",
          "-e",
          `socket(S,PF_UNIX,SOCK_STREAM,0);connect(S,pack_sockaddr_un("/tmp/${name}/s")) or exit 1`,
        ]);
        return false;
      } catch {
        return true;
      }
    });
}

/** This test process's ssh masters (one per connection). */
const masters = () => localProcesses("ControlPersist=no", process.pid);

const executors: SshExecutor[] = [];
afterEach(async () => {
  await Promise.all(executors.splice(0).map((executor) => executor.dispose()));
});

/** A host on `acp-test` through an executor of its own (disposed after the test). */
function sshHost(options: ConstructorParameters<typeof SshExecutor>[1] = {}) {
  const executor = new SshExecutor({ host: "acp-test" }, options);
  executors.push(executor);
  return makeHost({ on: executor, cwd: "/tmp" });
}

describe("ssh executor", () => {
  it("runs commands where the ssh_config alias resolves, through ProxyJump too, with exact exit codes and signals", async () => {
    for (const target of ["ssh://acp-test", "ssh://acp-jump"]) {
      const host = makeHost({ on: target, cwd: "/tmp" });
      const run = async (command: string) => {
        const id = await host.create(owner, { command });
        const status = await host.waitForExit(owner, id);
        return { status, output: host.output(owner, id).output };
      };
      const via = await run('echo "via=${SSH_CONNECTION%% *}"; exit 7');
      expect(via).toEqual({ status: { exitCode: 7, signal: null }, output: "via=127.0.0.1\n" });
      expect((await run("kill -INT $$")).status).toEqual({ exitCode: null, signal: "SIGINT" });
      expect((await run("trap 'exit 130' INT; kill -INT $$; sleep 5")).status).toEqual({
        exitCode: 130,
        signal: null,
      });
      await host.dispose();
    }
  });

  it("keeps stdout and stderr in order, feeds stdin, and runs PTYs at the size asked and resized", async () => {
    const host = sshHost();
    const ordered = await host.create(owner, {
      command: "for i in 1 2 3; do echo out$i; echo err$i >&2; done",
    });
    await host.waitForExit(owner, ordered);
    expect(host.output(owner, ordered).output).toBe("out1\nerr1\nout2\nerr2\nout3\nerr3\n");

    const cat = await host.create(owner, { command: "cat", args: [], stdin: true });
    await host.write(owner, cat, "through ssh\n", { eof: true });
    expect(await host.waitForExit(owner, cat)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, cat).output).toBe("through ssh\n");

    const pty = await host.create(owner, {
      command: "stty size; read line; stty size; test -t 0 && echo tty",
      pty: { cols: 100, rows: 30 },
    });
    await outputMatching(host, pty, /30 100/);
    host.resize(owner, pty, 120, 40);
    await host.write(owner, pty, "\r");
    expect(await host.waitForExit(owner, pty)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, pty).output).toMatch(/30 100\n.*\n?40 120\ntty/);
  });

  it("says what failed: a missing command, a missing cwd, an unreachable host", async () => {
    const host = sshHost();
    expect(
      (await rejection(host.create(owner, { command: "no-such-command-xyz", args: [] }))).message,
    ).toMatch(/^Command not found: no-such-command-xyz \(ENOENT\).*\(on ssh:\/\/acp-test\)$/);
    expect(
      (await rejection(host.create(owner, { command: "pwd", cwd: "/no/such/dir" }))).message,
    ).toBe("Working directory does not exist on ssh://acp-test: /no/such/dir");
    const unreachable = makeHost({ on: "ssh://nobody@127.0.0.1:1", cwd: "/tmp" });
    expect((await rejection(unreachable.create(owner, { command: "true" }))).message).toMatch(
      /^Cannot connect to ssh:\/\/nobody@127\.0\.0\.1:1: .*(refused|closed)/i,
    );
  });

  it("kills the remote process group on kill, and on release what left it with setsid", async () => {
    const host = sshHost();
    const mark = marker();
    const id = await host.create(owner, {
      command: "sleep 300 & setsid sleep 300 & echo started; wait",
      env: mark.env,
    });
    await outputMatching(host, id, /started/);
    await until(() => mark.left().length === 3, { message: "bash, sleep and setsid's sleep" });
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(mark.left()).toHaveLength(1); // the setsid'd sleep left the group
    await host.release(owner, id);
    await until(() => mark.left().length === 0, { message: "the setsid'd sleep to be swept" });

    // Exited, a background sleep left holding the output: release ends it within its grace.
    const left = await host.create(owner, { command: "sleep 300 & echo started", env: mark.env });
    expect(await host.waitForExit(owner, left)).toEqual({ exitCode: 0, signal: null });
    expect(mark.left()).toHaveLength(1);
    const releasing = Date.now();
    await host.release(owner, left);
    expect(Date.now() - releasing).toBeLessThan(1500); // grace 200 ms, not the 5 s fallback
    expect(mark.left()).toEqual([]);
  });

  it("carries twelve terminals on two connections when sshd allows ten sessions each", async () => {
    const executor = new SshExecutor({ host: "acp-test" });
    const host = makeHost({ on: executor, cwd: "/tmp" });
    const owners: TerminalOwner[] = [owner];
    const ids = await Promise.all(
      Array.from({ length: 12 }, () =>
        host.create(owners[0]!, { command: "sleep", args: ["300"] }),
      ),
    );
    expect(masters()).toHaveLength(2);
    await Promise.all(ids.map((id) => host.release(owner, id)));
    await host.dispose();
    await executor.dispose(); // an executor passed in is the caller's to dispose
    await until(() => masters().length === 0, { message: "masters to exit" });
  });

  it("ends every terminal with a note when the connection drops, leaves nothing there, and reconnects", async () => {
    const host = sshHost();
    const mark = marker();
    const ids = await Promise.all([
      host.create(owner, { command: "sleep 300; echo not-killed", env: mark.env }),
      host.create(owner, { command: "sleep 300; echo not-killed", env: mark.env, pty: true }),
    ]);
    await until(() => mark.left().length >= 2, { message: "both sleeps running" });
    for (const pid of masters()) {
      process.kill(pid, "SIGKILL"); // the connection drops
    }
    for (const id of ids) {
      const status = await withDeadline(host.waitForExit(owner, id), 10_000, "exit after the drop");
      expect(status).toEqual({ exitCode: null, signal: "SIGKILL" });
      // The note is beside the output, never in it.
      const read = host.output(owner, id);
      expect(read.notices).toEqual([
        expect.stringMatching(/^\[acp-terminal\] lost the connection to ssh:\/\/acp-test/),
      ]);
      expect(read.output).not.toContain("acp-terminal");
    }
    await until(() => mark.left().length === 0, { message: "the remote side to kill both" });
    const again = await host.create(owner, { command: "echo back" });
    expect(await host.waitForExit(owner, again)).toEqual({ exitCode: 0, signal: null });
  });

  it("ends terminals when the connection stalls, and the other side kills what ran", async () => {
    const host = sshHost({ heartbeatMs: 300 });
    const mark = marker();
    const id = await host.create(owner, { command: "sleep 300", env: mark.env });
    await until(() => mark.left().length === 1, { message: "the sleep running" });
    const stopped = masters();
    expect(stopped).toHaveLength(1);
    for (const pid of stopped) {
      process.kill(pid, "SIGSTOP"); // a silent partition: nothing arrives, nothing fails
    }
    try {
      const status = await withDeadline(host.waitForExit(owner, id), 5_000, "exit after the stall");
      expect(status).toEqual({ exitCode: null, signal: "SIGKILL" });
      const read = host.output(owner, id);
      expect(read.notices).toEqual([expect.stringMatching(/no answer from ssh:\/\/acp-test/)]);
      expect(read.output).not.toContain("acp-terminal");
      await until(() => mark.left().length === 0, {
        timeoutMs: 10_000,
        message: "the agent's timeout",
      });
    } finally {
      for (const pid of stopped) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  });

  it("reports a remote SIGKILL of the command exactly, and of its wrapper with a note and no survivor", async () => {
    const host = sshHost();
    const mark = marker();
    const command = await host.create(owner, { command: "sleep", args: ["300"], env: mark.env });
    const [sleeper] = await until(() => (mark.left().length === 1 ? mark.left() : undefined), {
      message: "the sleep",
    });
    process.kill(sleeper!, "SIGKILL");
    expect(
      await withDeadline(host.waitForExit(owner, command), 10_000, "the killed sleep's exit"),
    ).toEqual({ exitCode: null, signal: "SIGKILL" });

    const wrapped = await host.create(owner, { command: "sleep 300; echo x", env: mark.env });
    const [shell] = await until(() => (mark.left().length === 2 ? mark.left() : undefined), {
      message: "sh and sleep",
    });
    // This terminal's wrapper: `h.sh wrap <token>`, the token being the last part of its mark.
    const remoteMark = /ACP_TERMINAL_REMOTE=[0-9a-f]+\.([0-9a-f]+)/.exec(
      readFileSync(`/proc/${shell}/environ`, "latin1"),
    );
    // It forks its poller before the command runs, and the poller its exit hinter. Which is which
    // by parent, not by pid order: pids wrap around (at 32768 by default), and a wrapper of pid
    // 32767 has a poller of pid 301. The wrapper is the one whose parent is none of them.
    const wrapper = await until(
      () => {
        const found = localProcesses(`h.sh\0wrap\0${remoteMark?.[1]}`);
        const top = found.filter((pid) => !found.includes(parentOf(pid) ?? -1));
        return found.length === 3 && top.length === 1 ? top[0] : undefined;
      },
      { message: "the wrapper, its poller and the poller's hinter" },
    );
    process.kill(wrapper, "SIGKILL"); // its poller kills the group and says so
    expect(
      await withDeadline(
        host.waitForExit(owner, wrapped),
        10_000,
        "the exit of the wrapper's kill",
      ),
    ).toEqual({ exitCode: null, signal: "SIGKILL" });
    const read = host.output(owner, wrapped);
    expect(read.notices).toEqual([
      expect.stringMatching(/remote wrapper of this command .* was killed/),
    ]);
    expect(read.output).not.toContain("acp-terminal");
    await until(() => mark.left().length === 0, { message: "the agent to kill the group" });
    // The command's parent, which the command stopped, goes too (a stopped process waits forever).
    await until(() => localProcesses(`h.sh\0hold\0${remoteMark?.[1]}`).length === 0, {
      message: "the stopped parent of the command to be killed",
    });
  });

  it("leaves nothing on the other side when the host is SIGKILLed", async () => {
    const mark = marker();
    const staleBefore = staleAgentDirectories();
    const local = mkdtempSync(path.join(tmpdir(), "acp-host-"));
    onTestFinished(() => rmSync(local, { recursive: true, force: true }));
    const child = spawn(
      node,
      [fixture("remote-host-dies.mjs"), "ssh://acp-test", "sleep 300", mark.value],
      {
        stdio: ["ignore", "pipe", "inherit"],
        // Its TMPDIR: a SIGKILLed host cannot remove its master's socket directory; the test does.
        env: { ...process.env, ACP_TERMINAL_SSH_COMMAND: sshd.sshCommand.join(" "), TMPDIR: local },
      },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    try {
      await until(() => out.includes("ready"), {
        timeoutMs: 15_000,
        message: "the host to start both",
      });
      // sleep, in pipes and in a PTY: the helper answers a create once the command is forked, and
      // the exec that carries the marker may come after.
      await until(() => mark.left().length === 2, {
        timeoutMs: 10_000,
        message: "both commands to run",
      });
    } finally {
      child.kill("SIGKILL");
    }
    await until(() => mark.left().length === 0, {
      timeoutMs: 10_000,
      message: "the agent's cleanup",
    });
    await until(() => localProcesses(`ssh\0-F\0${sshd.configFile}`).length === 0, {
      message: "no ssh client left",
    });
    expect(staleAgentDirectories().filter((dir) => !staleBefore.includes(dir))).toEqual([]);
  });
});
