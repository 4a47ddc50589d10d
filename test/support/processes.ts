/** Process helpers for tests that must prove no process outlives them. */

/** True while a process with this pid exists (zombies included until reaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else (a recycled pid); still "alive" for our purpose.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
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
