/**
 * Nothing a terminal's command starts outlives the terminal's kill or release, or the host
 * process, however it dies: processes that stay in the group, and (with the default process-tree
 * containment, or a PID namespace) those that leave it with setsid, setsid -f, a double fork, or
 * env -i with both. Pipes and PTY. Every process carries a marker; what is left is counted by it.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { tmpdir } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { namespacesWork, treesWork } from "../../../test/support/containment.js";
import { escapeCases, newMarker } from "../../../test/support/escapes.js";
import { killSurvivors, processesWith } from "../../../test/support/processes.js";
import { until, withDeadline } from "../../../test/support/until.js";
import { Reaper } from "../src/contain/reaper.js";
import { sweepStaleReports } from "../src/contain/relay-report.js";
import { TerminalHost } from "../src/host/terminal-host.js";
import { fixture, makeHost, node, outputMatching, owner } from "./host-helpers.js";

type Option = "auto" | "pid-namespace" | "off";
/** The mode each option gives on this machine. */
const MODES: [Option, string][] = [
  ["auto", treesWork ? "process-tree" : "process-group"],
  [
    "pid-namespace",
    namespacesWork ? "pid-namespace" : treesWork ? "process-tree" : "process-group",
  ],
  ["off", "process-group"],
];
/** The escapes a mode holds: all of them, but for the process group alone those that stay in it. */
const escapesHeldBy = (mode: string) =>
  escapeCases("MARKER").filter((c) => mode !== "process-group" || !c.leavesGroup);

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

/** Every process under `pid` (children first, from /proc), the launcher and its standby included. */
function descendantsOf(pid: number): number[] {
  const children = (of: number): number[] => {
    try {
      return readdirSync(`/proc/${of}/task`).flatMap((task) =>
        readFileSync(`/proc/${of}/task/${task}/children`, "utf8")
          .split(" ")
          .filter(Boolean)
          .map(Number),
      );
    } catch {
      return []; // gone meanwhile
    }
  };
  const found: number[] = [];
  for (let todo = children(pid); todo.length > 0;) {
    const next = todo.shift()!;
    found.push(next);
    todo.push(...children(next));
  }
  return found;
}

const processName = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "(gone)";
  }
};

const running = (pid: number): boolean => {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/** The marked processes still running once `timeoutMs` passed without them all going. */
async function leftAfter(marker: string, timeoutMs = 5_000): Promise<number[]> {
  await until(() => processesWith(marker).length === 0, {
    timeoutMs,
    message: `every process marked ${marker} to end`,
  }).catch(() => undefined);
  return processesWith(marker);
}

describe("containment mode", () => {
  it.each(MODES)("%s gives %s here, and the default is auto", async (option, mode) => {
    const host = makeHost({ containment: option });
    expect(host.containment).toBe(mode);
    expect(makeHost().containment).toBe(MODES[0]![1]);
    const id = await host.create(owner, { command: "true" });
    expect(host.info(id)?.containment).toBe(mode);
  });

  it.each(MODES.slice(0, 2))(
    "%s (%s) keeps exit codes and signals exact, also for a command that handles the signal, and threads work",
    async (option) => {
      const host = makeHost({ containment: option });
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
    },
  );

  it.skipIf(!treesWork).each([
    ["pipes", false],
    ["a PTY", true],
  ] as const)(
    "by default, in %s, a command's $$ is its pid on this machine, the one the host reports",
    async (_, pty) => {
      const host = makeHost();
      const id = await host.create(owner, { command: "echo pid=$$; exec sleep 30", pty });
      const [, pid] = await outputMatching(host, id, /pid=(\d+)/);
      expect(Number(pid)).toBe(host.info(id)?.pid);
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).toBe("sleep\u000030\u0000");
    },
  );

  it.each([
    ["pipes", false],
    ["a PTY", true],
  ] as const)(
    "in %s, a command SIGKILLed from outside the host reads as SIGKILL, not as the relay's exit 1, and the relay's words stay out of its output",
    async (_, pty) => {
      const host = makeHost({ containment: "pid-namespace" });
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
    // This process's (the name carries its pid): other test files make theirs meanwhile.
    const reports = () =>
      new Set(
        readdirSync(tmpdir()).filter((name) =>
          name.startsWith(`acp-terminal-relay-${process.pid}-`),
        ),
      );
    const before = reports();
    const host = new TerminalHost({ containment: "pid-namespace" });
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

describe.each(
  MODES.flatMap(([option, mode]) =>
    [false, true].map((pty) => [option, mode, pty ? "a PTY" : "pipes", pty] as const),
  ),
)("with containment %s (%s), in %s, no process outlives", (option, mode, _, pty) => {
  it.concurrent.each(
    escapesHeldBy(mode).flatMap((c) =>
      // In a PTY what has not left the session yet gets SIGHUP when its leader exits.
      (pty
        ? (["kill", "release"] as const)
        : (["kill", "release", "release after its exit"] as const)
      ).map((fault) => [fault, c.name, c] as const),
    ),
  )("terminal/%s of a command with %s", async (fault, _name, escape) => {
    const marker = newMarker();
    markers.push(marker);
    // Its own host, disposed here: makeHost's hosts are all disposed after each test, concurrent ones too.
    const host = new TerminalHost({ containment: option, killGraceMs: 200, exitDrainGraceMs: 200 });
    try {
      const command = escape.command.replaceAll("MARKER", marker);
      // After its exit: the leader ends by itself, what it started goes on.
      const id = await host.create(owner, {
        command:
          fault === "release after its exit" ? command.replace(/exec sleep \S+$/, "true") : command,
        pty,
      });
      await allStarted(
        marker,
        fault === "release after its exit" ? escape.processes - 1 : escape.processes,
      );
      if (fault === "kill") {
        await host.kill(owner, id);
      } else {
        if (fault === "release after its exit") {
          await host.waitForExit(owner, id);
        }
        await host.release(owner, id);
      }
      expect(await leftAfter(marker)).toEqual([]);
    } finally {
      await host.dispose();
    }
  });
});

describe("a host process that dies leaves no process behind", () => {
  async function dieWith(
    how: "exit" | NodeJS.Signals,
    containment: Option,
    commands: string[],
    marker: string,
    tmp: string,
  ) {
    const child = spawn(node, [fixture("host-dies.mjs"), containment, JSON.stringify(commands)], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, TMPDIR: tmp },
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const exited = once(child, "exit");
    let started: number[] = [];
    try {
      await until(() => stdout.includes("ready"), {
        timeoutMs: 15_000,
        message: "the host to start its terminals",
      });
      await allStarted(marker, 2 * commands.length);
      started = descendantsOf(child.pid!);
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
    return started;
  }

  it.concurrent.each(
    MODES.flatMap(([option, mode]) =>
      (["SIGKILL", "SIGTERM", "SIGINT", "SIGHUP", "exit"] as const).map(
        (how) => [how, option, mode] as const,
      ),
    ),
  )(
    "of %s, containment %s (%s), with every escape it holds in pipes and a PTY",
    async (how, option, mode) => {
      const marker = newMarker();
      markers.push(marker);
      const commands = escapesHeldBy(mode).map((c) => c.command.replaceAll("MARKER", marker));
      const tmp = mkdtempSync(path.join(tmpdir(), "host-dies-"));
      try {
        const started = await dieWith(how, option, commands, marker, tmp);
        expect(await leftAfter(marker)).toEqual([]);
        // Unmarked too: the launcher, its relays and its standby (a relay and a waiting process).
        const left = await until(() => (started.some(running) ? undefined : []), {
          timeoutMs: 5_000,
          message: "every process the host started to end",
        }).catch(() => started.filter(running).map((pid) => `${pid} ${processName(pid)}`));
        expect(left).toEqual([]);
        // Its namespaces' relay report files, warm ones included: gone at its exit, else (killed
        // by a signal, nothing of it runs) swept by the next host's first report.
        const reports = () =>
          readdirSync(tmp).filter((name) => name.startsWith("acp-terminal-relay-"));
        if (how === "exit") {
          expect(reports()).toEqual([]);
        }
        const swept = sweepStaleReports(tmp);
        if (how === "exit" || mode !== "pid-namespace") {
          expect(swept).toBe(0);
        } else {
          expect(swept).toBeGreaterThan(0);
        }
        expect(reports()).toEqual([]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
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
