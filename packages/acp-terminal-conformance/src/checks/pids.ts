import { readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { CheckSkip } from "../base/probe.js";
import { errnoCodeOf } from "acp-terminal/internal";

/**
 * Watching the client's processes from the agent. Checks that need it run only when the client
 * runs on this machine (true for stdio) and in the same pid namespace; otherwise they skip.
 */

/** A zombie has exited; only its parent (the client) has not collected its status yet. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    // No /proc (macOS) or the process just went away: kill(pid, 0) alone decides.
    return false;
  }
}

/** Whether `pid` is a running (not zombie) process this agent can see. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else; ESRCH: it is gone.
    return errnoCodeOf(error) === "EPERM";
  }
  return !isZombie(pid);
}

/**
 * Shell text that sets `p` to the pid of the shell it runs in as the client's machine sees it,
 * and `t` to its start time: a client that runs commands in a PID namespace of their own
 * (acp-terminal run does) gives them small pids of that namespace in `$$` and `$!`, but /proc is
 * the machine's, and the shell itself (`read` is a builtin, no fork) reads its own stat there
 * (pid: field 1, start time: field 22). Without /proc (macOS), `$$` and no start time. Print
 * `name=$p@$t` so that `pidHere` can tell this process from another with the same pid here (a
 * container's pids are another namespace's, whose /proc is its own).
 */
export const READ_SHELL_PID =
  "{ read -r p _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ t _ </proc/self/stat; } 2>/dev/null || p=$$;";

/** Shell text that starts `sleep 60` in the background and prints `name=<its pid>@<start>` (see READ_SHELL_PID). */
export function backgroundSleep(name: string): string {
  return `(${READ_SHELL_PID} echo ${name}=$p@$t; exec sleep 60) &`;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks), or undefined. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/**
 * The pid a script printed as `name=<pid>@<start>`, when that very process runs here: alive, and
 * (where the script could say) started at the same time. Undefined otherwise, so a pid of another
 * machine or pid namespace that happens to name a process here is never watched or killed.
 */
export function pidHere(output: string, name: string): number | undefined {
  const match = new RegExp(`${name}=(\\d+)(?:@(\\d*))?`).exec(output);
  const pid = match ? Number(match[1]) : undefined;
  if (pid === undefined || !isAlive(pid)) {
    return undefined;
  }
  const printed = match?.[2];
  return printed && startTimeOf(pid) !== printed ? undefined : pid;
}

/** `pidHere`, or a skip when the process cannot be watched from here. */
export function visiblePid(output: string, name: string): number {
  const pid = pidHere(output, name);
  if (pid === undefined) {
    throw new CheckSkip(
      `process ${pidIn(output, name)} is not visible from the agent (another machine or pid namespace)`,
    );
  }
  return pid;
}

/** The pid a script printed as `name=<pid>`, or undefined. */
export function pidIn(output: string, name: string): number | undefined {
  const match = new RegExp(`${name}=(\\d+)`).exec(output);
  return match ? Number(match[1]) : undefined;
}

/** Resolves true once `pid` is gone, false if it still runs after `timeoutMs`. */
export async function untilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      return false;
    }
    // Watching another process end: there is no event to wait on, so poll briefly.
    await delay(20);
  }
  return true;
}

/**
 * SIGKILLs a process a check started that the client left behind (a grandchild outside the reach
 * of a client that does not kill process groups), so the battery leaves nothing running.
 * Returns whether there was one to kill.
 */
export function killLeftover(pid: number | undefined): boolean {
  if (pid === undefined || !isAlive(pid)) {
    return false;
  }
  try {
    process.kill(pid, "SIGKILL");
    return true;
  } catch (error) {
    // ESRCH: it ended meanwhile; EPERM: not ours to kill (pid reused). Either way nothing to do.
    if (errnoCodeOf(error) === "ESRCH" || errnoCodeOf(error) === "EPERM") {
      return false;
    }
    throw error;
  }
}
