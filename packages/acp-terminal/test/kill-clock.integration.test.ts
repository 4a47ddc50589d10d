/**
 * The kill escalation (SIGTERM → grace → SIGKILL) on an injected clock: real process groups, but
 * the grace runs only when the test advances the clock, so a minute's grace takes no minute.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it, onTestFinished } from "vitest";
import { ManualClock } from "../src/core/clock.js";
import { terminateProcessGroup, type TerminateTarget } from "../src/terminate/kill.js";
import { killSurvivors } from "../../../test/support/processes.js";
import { fixture, isAlive, node, until } from "./host-helpers.js";

/** Starts `args` as the leader of its own process group, with its stdout collected. */
function startGroup(args: string[]): {
  child: ChildProcess;
  target: TerminateTarget;
  stdout: () => string;
  exit: Promise<unknown[]>;
} {
  const child = spawn(args[0]!, args.slice(1), {
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const pid = child.pid!;
  onTestFinished(() => void killSurvivors([pid]));
  let text = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  let exited = false;
  const exit = once(child, "exit");
  const leaderExited = exit.then(() => (exited = true));
  return {
    child,
    stdout: () => text,
    exit,
    target: { pid, leaderExited, hasExited: () => exited },
  };
}

describe("kill escalation on an injected clock", () => {
  it("SIGKILLs a leader that ignores SIGTERM only when the clock reaches the grace", async () => {
    const clock = new ManualClock();
    const { child, target, stdout, exit } = startGroup([node, fixture("ignore-sigterm.mjs")]);
    await until(() => stdout().includes("ready"), { message: "the fixture to be ready" });
    const terminating = terminateProcessGroup(target, {
      signal: "SIGTERM",
      graceMs: 60_000,
      clock,
    });
    await until(() => stdout().includes("got SIGTERM") && clock.pending === 1, {
      message: "SIGTERM handled and the grace started",
    });
    clock.advance(59_999);
    expect(clock.pending).toBe(1);
    expect(isAlive(target.pid)).toBe(true);
    clock.advance(1);
    await terminating;
    expect(await exit).toEqual([null, "SIGKILL"]);
    expect(child.signalCode).toBe("SIGKILL");
  });

  it("gives a group member that outlives its leader the rest of the grace on the clock, then SIGKILL", async () => {
    const clock = new ManualClock();
    const script = `${node} ${fixture("ignore-sigterm.mjs")} & echo "bg $!"; wait`;
    const { target, stdout, exit } = startGroup(["/bin/sh", "-c", script]);
    const member = Number(
      (await until(() => /bg (\d+)/.exec(stdout()), { message: "the member's pid" }))[1],
    );
    onTestFinished(() => void killSurvivors([member]));
    await until(() => stdout().includes("ready"), { message: "the member to be ready" });
    const terminating = terminateProcessGroup(target, { signal: "SIGTERM", graceMs: 1_000, clock });
    expect(await exit).toEqual([null, "SIGTERM"]); // sh dies of SIGTERM at once
    await until(() => clock.pending === 1, { message: "the group poll to wait on the clock" });
    clock.advance(500);
    await until(() => clock.pending === 1, { message: "the group poll to wait again" });
    expect(isAlive(member)).toBe(true);
    clock.advance(500);
    await terminating;
    await until(() => !isAlive(member), { message: `member ${member} to be SIGKILLed` });
  });
});
