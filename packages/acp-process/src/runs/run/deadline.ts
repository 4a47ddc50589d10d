import { setTimeout as sleep } from "node:timers/promises";

/**
 * Waits for `promise` at most `ms` (real time: these bound calls to a client, they are not run
 * timeouts). Resolves `{ok: true, value}` or `{ok: false}` on timeout; the timer is always cleared.
 */
export async function withinMs<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ ok: true; value: T } | { ok: false }> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      promise.then((value) => ({ ok: true as const, value })),
      sleep(ms, { ok: false as const }, { signal: timer.signal }),
    ]);
  } finally {
    timer.abort();
  }
}
