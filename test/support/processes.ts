/** Process helpers for tests that must prove no process outlives them. */
import { readdirSync, readFileSync } from "node:fs";
import { isAlive } from "../../packages/acp-terminal-conformance/src/checks/pids.js";

// True while a process with this pid runs (a zombie does not count): the one the conformance checks use.
export { isAlive };

/** Last-resort cleanup in `afterEach`/`afterAll`: SIGKILL each pid's group, then the pid. */
export function killSurvivors(pids: Iterable<number>): number[] {
  const killed: number[] = [];
  for (const pid of pids) {
    if (!isAlive(pid)) {
      continue;
    }
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch (error) {
        // ESRCH: no such group (the pid was not a group leader) or already gone; nothing to do.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") {
          throw error;
        }
      }
    }
    killed.push(pid);
  }
  return killed;
}

/**
 * Pids of the running (not zombie) processes whose command line contains `marker`: put a unique
 * marker in every process a test starts, then count what is left. Reads /proc (Linux).
 */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(marker) && isAlive(Number(entry))) {
      found.push(Number(entry));
    }
  }
  return found;
}

/**
 * Pids of the running processes whose environment holds `name=value`: a marker every descendant
 * inherits, so what a test started on this machine, over ssh to localhost or in a local
 * container, can be counted afterwards. Reads /proc (Linux); unreadable entries are skipped.
 */
export function processesWithEnv(name: string, value: string): number[] {
  const needle = `\0${name}=${value}\0`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "latin1");
    } catch {
      continue; // gone meanwhile, or another user's
    }
    if (`\0${environ}`.includes(needle) && isAlive(Number(entry))) {
      found.push(Number(entry));
    }
  }
  return found;
}
