/**
 * A group whose members all exited but are not reaped yet (zombies of a parent that never waits:
 * init in a container, say) is empty for a kill: terminate does not wait out its grace on them.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, it, onTestFinished } from "vitest";
import { ManualClock } from "../src/core/clock.js";
import { processGroupAlive, terminateProcessGroup } from "../src/terminate/kill.js";
import { killSurvivors } from "../../../test/support/processes.js";
import { until, withDeadline } from "../../../test/support/until.js";

/** The state letter and process group of `pid` in /proc (undefined once reaped). */
function statOf(pid: number): { state: string; group: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const [state = "", , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3);
    return { state, group: Number(group) };
  } catch {
    return undefined;
  }
}

// The parent forks a group leader and a second member of its group, then never reaps either.
const PARENT = `
use POSIX ();
my $leader = fork() // die;
if ($leader == 0) { setpgrp(0, 0); exec 'sleep', '300'; }
setpgrp($leader, $leader);
my $member = fork() // die;
if ($member == 0) { setpgrp(0, $leader); exec 'sleep', '300'; }
$| = 1; print "$leader $member\\n";
sleep 300;
`;

it("a group whose members are all zombies (exited, their parent never reaps) is not alive, and its kill ends without waiting out the grace", async () => {
  const parent = spawn("perl", ["-e", PARENT], { stdio: ["ignore", "pipe", "inherit"] });
  onTestFinished(() => void killSurvivors([parent.pid!]));
  let said = "";
  parent.stdout.setEncoding("utf8").on("data", (chunk: string) => (said += chunk));
  const [leader, member] = (
    await until(() => (said.includes("\n") ? said : undefined), { message: "the two pids" })
  )
    .trim()
    .split(" ")
    .map(Number) as [number, number];
  onTestFinished(() => void killSurvivors([leader, member]));
  await until(() => [leader, member].every((pid) => statOf(pid)?.group === leader), {
    timeoutMs: 15_000,
    message: `both ${leader} and ${member} in group ${leader}`,
  });
  expect(processGroupAlive(leader)).toBe(true);

  process.kill(-leader, "SIGKILL");
  await until(() => [leader, member].every((pid) => statOf(pid)?.state === "Z"), {
    timeoutMs: 15_000,
    message: `both members to be zombies: ${JSON.stringify([statOf(leader), statOf(member)])}`,
  });
  expect(processGroupAlive(leader)).toBe(false);
  // A clock that never moves: a kill that waited for the group would never end.
  await withDeadline(
    terminateProcessGroup(
      { pid: leader, leaderExited: Promise.resolve(), hasExited: () => true },
      { signal: "SIGTERM", graceMs: 60_000, clock: new ManualClock() },
    ),
    5_000,
    "the kill of a group of zombies to end",
  );
});
