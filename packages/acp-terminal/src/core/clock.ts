import { setTimeout as delay } from "node:timers/promises";

/**
 * Time as the kill escalation sees it, so a test can run a grace of a minute without waiting a
 * minute: `now()` in ms, and `sleep` that resolves after `ms` on this clock (rejects on `signal`).
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
};
