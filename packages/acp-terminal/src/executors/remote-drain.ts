import { setTimeout as delay } from "node:timers/promises";

/** Most grace periods the drain after exit is extended while output keeps coming (as pipes.ts). */
const MAX_DRAIN_ROUNDS = 8;

/**
 * After the remote command exited, waits for its session's output to end (`ended`); true when it
 * did. The exit report and the output travel on different channels, so the output usually ends a
 * moment after the report. A background process that keeps the session open is waited for only
 * until a grace period passes with no new output (at most MAX_DRAIN_ROUNDS periods); a kill under
 * way (`hold`) keeps the drain open until it is done, as in spawn/pipes.ts.
 */
export async function drainUntilQuiet(
  ended: Promise<void>,
  graceMs: number,
  signal: AbortSignal,
  bytesRead: () => number,
  hold: () => Promise<unknown> | undefined,
): Promise<boolean> {
  const drained = ended.then(() => true);
  for (let round = 0; round < MAX_DRAIN_ROUNDS; round++) {
    for (let held = hold(); held; held = hold()) {
      if (await Promise.race([drained, held.then(() => false)])) {
        return true;
      }
      if (hold() === held) {
        break;
      }
    }
    const before = bytesRead();
    const waited = await Promise.race([
      drained,
      delay(graceMs, false, { signal }).catch(() => undefined),
    ]);
    if (waited === undefined) {
      return false; // released meanwhile
    }
    if (waited) {
      return true;
    }
    if (bytesRead() === before) {
      return false;
    }
  }
  return false;
}
