/** Process helpers for tests that must prove no process outlives them. */
import { readFileSync } from "node:fs";

/** On Linux, a zombie (exited, not yet reaped by its parent or init) is dead for our purpose. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false; // no /proc (macOS) or the process just went away: kill(pid, 0) decides
  }
}

/** True while a process with this pid runs (a zombie does not count). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else (a recycled pid); still "alive" for our purpose.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

/** Last-resort cleanup in `afterEach`/`afterAll`: SIGKILL each pid's group, then the pid. */
export function killSurvivors(pids: Iterable<number>): number[] {
  const killed: number[] = [];
  for (const pid of pids) {
    if (!isAlive(pid)) continue;
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch (error) {
        // ESRCH: no such group (the pid was not a group leader) or already gone; nothing to do.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
    killed.push(pid);
  }
  return killed;
}
