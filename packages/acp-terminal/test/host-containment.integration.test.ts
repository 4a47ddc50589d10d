/**
 * Nothing a terminal's command starts outlives the terminal's kill or release, or the host
 * process, however it dies: processes that stay in the group, and (where PID namespaces are
 * available) those that leave it with setsid, setsid -f or a double fork. Pipes and PTY. Every
 * process carries a marker; what is left is counted by it.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { escapeCases, newMarker } from "../../../test/support/escapes.js";
import { killSurvivors, processesWith } from "../../../test/support/processes.js";
import { until, withDeadline } from "../../../test/support/until.js";
import { Reaper } from "../src/contain/reaper.js";
import { TerminalHost } from "../src/host/terminal-host.js";
import { fixture, makeHost, node, owner } from "./host-helpers.js";

/** Whether this machine gives unprivileged user + PID namespaces, asked directly (not through our probe). */
const namespacesWork =
  spawnSync("unshare", ["--user", "--map-current-user", "--pid", "--fork", "true"]).status === 0;

const markers: string[] = [];
afterAll(() => {
  killSurvivors(markers.flatMap(processesWith)); // a failed test leaves nothing running
});

/** Waits until `count` processes carry the marker (everything the command starts is running). */
function allStarted(marker: string, count: number): Promise<number[]> {
  return until(() => (processesWith(marker).length >= count ? processesWith(marker) : undefined), {
    timeoutMs: 10_000,
    message: `${count} processes marked ${marker}`,
  });
}

/** The marked processes still running once `timeoutMs` passed without them all going. */
async function leftAfter(marker: string, timeoutMs = 5_000): Promise<number[]> {
  await until(() => processesWith(marker).length === 0, {
    timeoutMs,
    message: `every process marked ${marker} to end`,
  }).catch(() => undefined);
  return processesWith(marker);
}

const contained = () => makeHost({ containment: "auto" });

describe("containment mode", () => {
  it("auto is pid-namespace exactly where unprivileged user and PID namespaces work; off is the default", async () => {
    expect(contained().containment).toBe(namespacesWork ? "pid-namespace" : "process-group");
    expect(makeHost().containment).toBe("process-group");
    const host = contained();
    const id = await host.create(owner, { command: "true" });
    expect(host.info(id)?.containment).toBe(host.containment);
  });

  it("keeps exit codes and signals exact, also for a command that handles the signal, and threads work", async () => {
    const host = contained();
    const run = async (params: Parameters<typeof host.create>[1]) => {
      const id = await host.create(owner, params);
      return { status: await host.waitForExit(owner, id), output: host.output(owner, id).output };
    };
    expect((await run({ command: "kill -TERM $$" })).status).toEqual({
      exitCode: null,
      signal: "SIGTERM",
    });
    expect((await run({ command: "exit 7" })).status).toEqual({ exitCode: 7, signal: null });
    // A process whose children go to another PID namespace cannot start threads; the command never is one.
    const threads =
      "new (require('worker_threads').Worker)('process.exit(0)', { eval: true }).on('exit', () => console.log('thread ran'))";
    expect(await run({ command: node, args: ["-e", threads] })).toEqual({
      status: { exitCode: 0, signal: null },
      output: "thread ran\n",
    });
    const handler = await host.create(owner, {
      command: "trap 'echo cleaned; exit 3' TERM; echo ready; sleep 30 & wait",
    });
    await until(() => host.output(owner, handler).output.includes("ready"));
    // The reported pid leads the group that kill signals.
    expect(() => process.kill(-host.info(handler)!.pid!, 0)).not.toThrow();
    expect(await host.kill(owner, handler)).toEqual({ exitCode: 3, signal: null });
    expect(host.output(owner, handler).output).toBe("ready\ncleaned\n");
  });

  it.each([
    ["pipes", false],
    ["a PTY", true],
  ] as const)(
    "in %s, a command SIGKILLed from outside the host reads as SIGKILL, not as the relay's exit 1, and the relay's words stay out of its output",
    async (_, pty) => {
      const host = contained();
      const id = await host.create(owner, {
        command: "echo before; echo err >&2; kill -KILL $$",
        pty,
      });
      expect(await host.waitForExit(owner, id)).toEqual({ exitCode: null, signal: "SIGKILL" });
      const output = host.output(owner, id).output.replaceAll("\r\n", "\n");
      expect(output).toBe("before\nerr\n");
      const exits = await host.create(owner, { command: "echo err >&2; exit 1", pty });
      expect(await host.waitForExit(owner, exits)).toEqual({ exitCode: 1, signal: null });
      expect(host.output(owner, exits).output.replaceAll("\r\n", "\n")).toBe("err\n");
    },
  );

  it("leaves no relay report file behind once its terminals are released", async () => {
    const reports = () =>
      new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("acp-terminal-relay-")));
    const before = reports();
    const host = new TerminalHost({ containment: "auto" });
    const ids = await Promise.all(
      [1, 2, 3].map(() => host.create(owner, { command: "kill -KILL $$" })),
    );
    const ours = [...reports()].filter((name) => !before.has(name));
    expect(ours.length >= 3).toBe(namespacesWork);
    for (const id of ids) {
      await host.waitForExit(owner, id);
    }
    for (const id of ids) {
      await host.release(owner, id);
    }
    await host.dispose();
    const left = reports();
    expect(ours.filter((name) => left.has(name))).toEqual([]);
  });
});

describe.each([
  ["pipes", false],
  ["a PTY", true],
] as const)("in %s, no process outlives", (_, pty) => {
  const cases = escapeCases("MARKER").filter((c) => namespacesWork || !c.leavesGroup);
  it.concurrent.each(
    cases.flatMap((c) =>
      (["kill", "release"] as const).map((fault) => [fault, c.name, c] as const),
    ),
  )("terminal/%s of a command with %s", async (fault, _name, escape) => {
    const marker = newMarker();
    markers.push(marker);
    // Its own host, disposed here: makeHost's hosts are all disposed after each test, concurrent ones too.
    const host = new TerminalHost({ containment: "auto", killGraceMs: 200, exitDrainGraceMs: 200 });
    try {
      const id = await host.create(owner, {
        command: escape.command.replaceAll("MARKER", marker),
        pty,
      });
      await allStarted(marker, escape.processes);
      if (fault === "kill") {
        await host.kill(owner, id);
      } else {
        await host.release(owner, id);
      }
      expect(await leftAfter(marker)).toEqual([]);
    } finally {
      await host.dispose();
    }
  });
});

describe("a host process that dies leaves no process behind", () => {
  const cases = escapeCases("MARKER").filter((c) => namespacesWork || !c.leavesGroup);

  async function dieWith(
    how: "exit" | NodeJS.Signals,
    containment: "auto" | "off",
    commands: string[],
    marker: string,
  ) {
    const child = spawn(node, [fixture("host-dies.mjs"), containment, JSON.stringify(commands)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const exited = once(child, "exit");
    try {
      await until(() => stdout.includes("ready"), {
        timeoutMs: 15_000,
        message: "the host to start its terminals",
      });
      await allStarted(marker, 2 * commands.length);
      if (how === "exit") {
        child.stdin.write("exit\n");
      } else {
        child.kill(how);
      }
      const [code, signal] = (await withDeadline(exited, 10_000, "the host to die")) as [
        number | null,
        NodeJS.Signals | null,
      ];
      expect(how === "exit" ? code : signal).toBe(how === "exit" ? 3 : how);
    } finally {
      child.kill("SIGKILL");
    }
  }

  it.concurrent.each(["SIGKILL", "SIGTERM", "SIGINT", "SIGHUP", "exit"] as const)(
    "of %s, with every escape in pipes and a PTY",
    async (how) => {
      const marker = newMarker();
      markers.push(marker);
      const commands = cases.map((c) => c.command.replaceAll("MARKER", marker));
      await dieWith(how, "auto", commands, marker);
      expect(await leftAfter(marker)).toEqual([]);
    },
  );

  it("of SIGKILL, with containment off: the watchdog still kills every group", async () => {
    const marker = newMarker();
    markers.push(marker);
    const commands = cases
      .filter((c) => !c.leavesGroup)
      .map((c) => c.command.replaceAll("MARKER", marker));
    await dieWith("SIGKILL", "off", commands, marker);
    expect(await leftAfter(marker)).toEqual([]);
  });
});

describe("the reaper", () => {
  it("ignores SIGINT, SIGTERM and SIGHUP, and never kills a group that was untracked", async () => {
    const marker = newMarker();
    markers.push(marker);
    const kept = spawn("sleep", [marker], { detached: true, stdio: "ignore" });
    const killed = spawn("sleep", [marker], { detached: true, stdio: "ignore" });
    await allStarted(marker, 2);
    const reaper = new Reaper();
    reaper.track(kept.pid!);
    reaper.track(killed.pid!);
    reaper.track(kept.pid!);
    reaper.untrack(kept.pid!);
    reaper.untrack(kept.pid!);
    const pid = reaper.pid!;
    // Once its shell runs the script, the kernel lists the three as ignored (SigIgn bits 1, 2, 15).
    const ignored = () =>
      BigInt(
        `0x${/^SigIgn:\s+([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0"}`,
      );
    await until(() => (ignored() & 0x4003n) === 0x4003n, {
      message: "the reaper to ignore SIGHUP, SIGINT and SIGTERM",
    });
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
      process.kill(pid, signal);
    }
    reaper.close(); // end-of-file, as when the host dies
    await until(() => processesWith(marker).length === 1, {
      message: "the tracked group to be killed",
    });
    expect(processesWith(marker)).toEqual([kept.pid]);
    kept.kill("SIGKILL");
  });
});
