import { setTimeout as sleep } from "node:timers/promises";

/*
 * Real time, for bounding calls to a client (real I/O that a ManualClock cannot speed up). Run
 * timeouts, TTLs and timestamps take the injected clock instead (src/clock.ts); eslint keeps
 * Date.now() and timers out of the rest of runs/.
 */

/** Real wall-clock milliseconds. */
export const realNowMs = (): number => Date.now();

/** Resolves after `ms` of real time (aborted early by `options.signal`). */
export { sleep };

/**
 * Resolves after `ms` of real time, or as soon as `signal` aborts; never rejects. A plain timer
 * and listener: a timers/promises sleep that is aborted builds an AbortError with its stack.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Waits for `promise` at most `ms` (real time: these bound calls to a client, they are not run
 * timeouts). Resolves `{ok: true, value}` or `{ok: false}` on timeout; the timer is always cleared.
 */
export async function withinMs<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ ok: true; value: T } | { ok: false }> {
  // A plain timer: aborting a timers/promises sleep builds an AbortError (a DOMException with
  // its stack) on every call, most of the cost of a bounded read that answers at once.
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise.then((value) => ({ ok: true as const, value })),
      new Promise<{ ok: false }>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false }), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
