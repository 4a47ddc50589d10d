import { setTimeout as delay } from "node:timers/promises";
import { readFileSync } from "node:fs";
import type { ProcessManager } from "acp-process";
import { errnoCodeOf } from "acp-terminal/internal";

/**
 * Resolves with the run's output once `test` accepts it, checked now and on every new output
 * item acp-process reports. Rejects if the run ends first, or after `timeoutMs`, saying what it waited for.
 */
export function outputMatching(
  manager: ProcessManager,
  runId: string,
  test: (output: string) => boolean,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const output = manager.tail(runId, { maxChars: 100_000 }).text;
      if (!test(output)) {
        return false;
      }
      finish();
      resolve(output);
      return true;
    };
    const timer = setTimeout(() => {
      finish();
      reject(
        new Error(
          `${runId} did not print what the tour expected within ${timeoutMs} ms; output so far: ${JSON.stringify(manager.tail(runId, { maxChars: 200 }).text)}`,
        ),
      );
    }, timeoutMs);
    const unsubscribe = manager.subscribe((event) => {
      if (event.type === "output" && event.runId === runId) {
        check();
      }
      if (event.type === "exit" && event.run.id === runId && !check()) {
        finish();
        reject(
          new Error(`${runId} ended (${event.run.status}) before printing what the tour expected`),
        );
      }
    });
    const finish = (): void => {
      clearTimeout(timer);
      unsubscribe();
    };
    check();
  });
}

/** The command line of process `pid` on this machine (arguments space-separated), or null if there is none. */
export function commandLineOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return null; // no such process (or no /proc): nothing to name
  }
}

/** Resolves with the pids still alive once none is, or at the deadline (a kill may take a moment to reap). */
export async function survivors(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() >= deadline) {
      return alive;
    }
    await delay(20);
  }
}

/** True while the process runs. A zombie (exited, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return errnoCodeOf(error) === "EPERM"; // exists, owned by someone else
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false; // no /proc (macOS): kill(pid, 0) alone decides
  }
}
