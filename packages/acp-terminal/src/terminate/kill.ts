/**
 * Process-group termination.
 *
 * Every command is started as the leader of its own process group: pipes with
 * `child_process.spawn({ detached: true })` (setsid), PTYs by node-pty (the child is a session
 * leader). So the group id is the leader's pid and `kill(-pid, signal)` reaches the command and
 * everything it started (pipelines, `make -j` workers, `npm run` children), unless one of them
 * moved itself to another group or session (setsid, `setpgid`), which no kill by group can reach.
 *
 * Termination is SIGTERM (or the signal asked for) to the group, then SIGKILL to the group after
 * a grace (`KILL_GRACE_MS` unless configured), then, once the leader has exited, SIGKILL to the
 * group once more for members that outlived it (a grandchild that ignored SIGTERM, or one started
 * during the grace). So kill and release leave no orphans.
 *
 * Fallback: if signalling the group fails with ESRCH (no process is in the group any more, e.g.
 * the command changed its own group), the leader's pid alone is signalled, but only while the
 * leader has not been seen to exit: after that its pid may belong to another process.
 */
import { setTimeout as delay } from "node:timers/promises";

/** SIGTERM → SIGKILL grace when the host options do not say otherwise. */
export const KILL_GRACE_MS = 1000;

/** What a signal reached: the whole group, the leader only (fallback), or nothing any more. */
export type SignalOutcome = "group" | "leader" | "gone";

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Sends `signal` to the process group led by `pid`; with `leaderFallback`, falls back to the pid
 * alone when the group is gone. Returns `"gone"` when nothing was there to signal (ESRCH). Any
 * other failure (EPERM: a member runs as another user) is thrown: the caller cannot fix it.
 */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals | 0, leaderFallback: boolean): SignalOutcome {
  try {
    process.kill(-pid, signal);
    return "group";
  } catch (error) {
    if (errorCode(error) !== "ESRCH") throw error;
  }
  if (!leaderFallback) return "gone";
  try {
    process.kill(pid, signal);
    return "leader";
  } catch (error) {
    if (errorCode(error) !== "ESRCH") throw error;
    return "gone";
  }
}

/** True while any process is left in the group led by `pid` (signal 0 only checks). */
export function processGroupAlive(pid: number): boolean {
  try {
    return signalProcessGroup(pid, 0, false) !== "gone";
  } catch (error) {
    // EPERM: a member exists that we may not signal; it is alive all the same.
    if (errorCode(error) === "EPERM") return true;
    throw error;
  }
}

export interface TerminateTarget {
  pid: number;
  /** Resolves when the group leader has exited (not waiting for its output to drain). */
  leaderExited: Promise<unknown>;
  /** True once `leaderExited` has resolved. */
  hasExited(): boolean;
}

export interface TerminateOptions {
  signal: NodeJS.Signals;
  graceMs: number;
  /** Aborted when the terminal settles or is released; ends the grace timer. */
  abortSignal?: AbortSignal;
}

/**
 * Sends `signal` to the group, SIGKILL after `graceMs` if the leader is still running, and once
 * the leader has exited, SIGKILL to whatever is left in the group. Resolves after that.
 */
export async function terminateProcessGroup(target: TerminateTarget, options: TerminateOptions): Promise<void> {
  if (!target.hasExited()) {
    signalProcessGroup(target.pid, options.signal, true);
    const timedOut = await Promise.race([
      target.leaderExited.then(() => false),
      // Aborted: the terminal settled or was released, so there is nothing left to escalate.
      delay(options.graceMs, true, { signal: options.abortSignal }).catch(() => false),
    ]);
    if (timedOut && !target.hasExited()) signalProcessGroup(target.pid, "SIGKILL", true);
    await target.leaderExited;
  }
  killLeftovers(target.pid);
}

/** SIGKILL to members left in the group after its leader exited; the group only, never the pid. */
export function killLeftovers(pid: number): void {
  signalProcessGroup(pid, "SIGKILL", false);
}
