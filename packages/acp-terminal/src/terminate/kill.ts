/**
 * Process-group termination.
 *
 * Every command is started as the leader of its own process group: pipes with
 * `child_process.spawn({ detached: true })` (setsid), PTYs by node-pty (the child is a session
 * leader). So the group id is the leader's pid and `kill(-pid, signal)` reaches the command and
 * everything it started (pipelines, `make -j` workers, `npm run` children), unless one of them
 * moved itself to another group or session (setsid, `setpgid`), which no kill by group can reach.
 *
 * Termination is SIGTERM (or the signal asked for) to the group, then one grace (`KILL_GRACE_MS`
 * unless configured) for the whole group: the leader and every other member. Members still there
 * when the grace runs out get SIGKILL, also when the leader exited early (`bash -c "npm start"`:
 * bash dies of SIGTERM at once, node gets the rest of the grace to clean up). So kill and release
 * leave no orphans, and a command's SIGTERM handler gets its grace wherever it sits in the group.
 *
 * Fallback: if signalling the group fails with ESRCH (no process is in the group any more, e.g.
 * the command changed its own group), the leader's pid alone is signalled, but only while the
 * leader has not been seen to exit: after that its pid may belong to another process.
 *
 * A command started through the launcher also has a `tree`: every process it started, those that
 * left the group (setsid, a double fork) included. The tree gets the same signal and shares the
 * same grace; what is left of it then gets SIGKILL until none is left (bounded by TREE_SWEEP_MS).
 */
import { readdirSync, readFileSync } from "node:fs";
import { sleepOn, systemClock, type Clock } from "../core/clock.js";
import { errnoCodeOf } from "../core/thrown.js";
import type { ProcessTree } from "./process-tree.js";

/** SIGTERM → SIGKILL grace when the host options do not say otherwise. */
export const KILL_GRACE_MS = 1000;

/** What a signal reached: the whole group, the leader only (fallback), or nothing any more. */
export type SignalOutcome = "group" | "leader" | "gone";

/**
 * Sends `signal` to the process group led by `pid`; with `leaderFallback`, falls back to the pid
 * alone when the group is gone. Returns `"gone"` when nothing was there to signal (ESRCH). Any
 * other failure (EPERM: a member runs as another user) is thrown: the caller cannot fix it.
 */
export function signalProcessGroup(
  pid: number,
  signal: NodeJS.Signals | 0,
  leaderFallback: boolean,
): SignalOutcome {
  try {
    process.kill(-pid, signal);
    return "group";
  } catch (error) {
    if (errnoCodeOf(error) !== "ESRCH") {
      throw error;
    }
  }
  if (!leaderFallback) {
    return "gone";
  }
  try {
    process.kill(pid, signal);
    return "leader";
  } catch (error) {
    if (errnoCodeOf(error) !== "ESRCH") {
      throw error;
    }
    return "gone";
  }
}

/** True while any process is left in the group led by `pid` (signal 0 only checks). */
export function processGroupAlive(pid: number): boolean {
  try {
    return signalProcessGroup(pid, 0, false) !== "gone" && groupRunning(pid);
  } catch (error) {
    // EPERM: a member exists that we may not signal; it is alive all the same.
    if (errnoCodeOf(error) === "EPERM") {
      return true;
    }
    throw error;
  }
}

/**
 * Whether a member of group `pgid` still runs, as /proc tells (true where it cannot be read). A
 * zombie does not: it exited, and waits for its parent to reap it. An orphan's parent is init,
 * which in a container may reap late or never; counted as alive, it held every kill for its
 * whole grace.
 */
function groupRunning(pgid: number): boolean {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) {
      continue; // not a process
    }
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // gone meanwhile
    }
    // After "(comm) ": state, ppid, pgrp, … (comm may hold spaces and parentheses).
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3);
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") {
      return true;
    }
  }
  return false;
}

export interface TerminateTarget {
  pid: number;
  /** Resolves when the group leader has exited (not waiting for its output to drain). */
  leaderExited: Promise<unknown>;
  /** True once `leaderExited` has resolved. */
  hasExited(): boolean;
  /** What the command started outside its group too (started through the launcher). */
  tree?: ProcessTree | undefined;
}

export interface TerminateOptions {
  signal: NodeJS.Signals;
  graceMs: number;
  /** Whose time the grace is measured in. Default: the real clock (tests inject a manual one). */
  clock?: Clock;
}

/** How often the group is looked at during the grace after its leader exited. */
const GROUP_POLL_MS = 20;
/** How long SIGKILL is repeated on a tree that is not empty yet (a fork racing the kill). */
const TREE_SWEEP_MS = 2000;

/**
 * Sends `signal` to the group, waits up to `graceMs` for the whole group to exit (the leader,
 * then every other member), and sends SIGKILL to the group if anything is left when the grace
 * runs out. Resolves once the leader has exited and the group was emptied or SIGKILLed. A leader
 * that already exited is not signalled (its pid may be reused); its group still is.
 */
export async function terminateProcessGroup(
  target: TerminateTarget,
  options: TerminateOptions,
): Promise<void> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.graceMs;
  const leaderRunning = !target.hasExited();
  const { tree } = target;
  const reached = signalProcessGroup(target.pid, options.signal, leaderRunning);
  tree?.signalTree(options.signal);
  if (reached === "gone" && tree?.treeAlive !== true) {
    await target.leaderExited;
    return;
  }
  const timers = new AbortController();
  try {
    if (leaderRunning) {
      const graceOver = await Promise.race([
        target.leaderExited.then(() => false),
        sleepOn(clock, options.graceMs, timers.signal).then(
          () => true,
          () => true,
        ),
      ]);
      if (graceOver && !target.hasExited()) {
        signalProcessGroup(target.pid, "SIGKILL", true);
      }
      await target.leaderExited;
    }
    // The leader is gone; the rest of the group (and tree) gets what is left of the same grace.
    while (clock.now() < deadline && (processGroupAlive(target.pid) || tree?.treeAlive === true)) {
      const pause = sleepOn(clock, Math.min(GROUP_POLL_MS, Math.max(1, deadline - clock.now())));
      await (tree ? Promise.race([pause, tree.emptied]) : pause);
    }
  } finally {
    timers.abort(); // clears a grace timer the leader's exit made needless
  }
  // Members left in the group after its leader exited: the group only, never the (reusable) pid.
  signalProcessGroup(target.pid, "SIGKILL", false);
  if (tree) {
    await sweepTree(tree, clock);
  }
}

/** SIGKILLs what is left of `tree`, again each poll while a fork races it, until it is empty. */
async function sweepTree(tree: ProcessTree, clock: Clock): Promise<void> {
  const until = clock.now() + TREE_SWEEP_MS;
  while (tree.treeAlive && clock.now() < until) {
    tree.signalTree("SIGKILL");
    await Promise.race([sleepOn(clock, GROUP_POLL_MS), tree.emptied]);
  }
}
