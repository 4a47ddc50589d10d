import { setTimeout as delay } from "node:timers/promises";

/**
 * Time as the library and acp-process see it, so a test can run a minute's kill grace, a TTL or a
 * timeout without waiting for it: `now()` in ms, and timers on this clock. Tests inject a
 * `ManualClock`; everything else runs on `systemClock`.
 */
export interface Clock {
  now(): number;
  /** Calls `callback` after `ms`; returns a cancel function. */
  setTimeout(callback: () => void, ms: number): () => void;
  /**
   * Resolves after `ms` on this clock, rejects on `signal`. Optional: `sleepOn` builds it from
   * `setTimeout` when absent. `systemClock`'s keeps the process alive while it waits (its
   * `setTimeout` does not), as a kill's grace must.
   */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Node fires a timer of more than 2^31-1 ms (about 24.8 days) after 1 ms instead. Longer delays are
 * chained: the timer is re-armed in steps of at most this many ms until the deadline is reached.
 */
export const MAX_TIMER_STEP_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
  setTimeout(callback, ms) {
    const deadline = Date.now() + Math.max(0, ms);
    let timer: NodeJS.Timeout;
    const arm = (remainingMs: number): void => {
      timer = setTimeout(
        () => {
          const left = deadline - Date.now();
          if (left > 0) {
            arm(left);
          } else {
            callback();
          }
        },
        Math.min(remainingMs, MAX_TIMER_STEP_MS),
      );
      timer.unref?.();
    };
    arm(Math.max(0, ms));
    return () => clearTimeout(timer);
  },
};

/** Calls `callback` every `intervalMs` on `clock` until the returned function is called. */
export function repeatOnClock(clock: Clock, intervalMs: number, callback: () => void): () => void {
  let cancel = (): void => {};
  const tick = (): void => {
    callback();
    cancel = clock.setTimeout(tick, intervalMs);
  };
  cancel = clock.setTimeout(tick, intervalMs);
  return () => cancel();
}

/** A clock that only moves when told to; fires due timers in order on `advance`. */
export class ManualClock implements Clock {
  private timers: { at: number; callback: () => void; id: number }[] = [];
  private nextId = 0;

  constructor(private current = 0) {}

  now(): number {
    return this.current;
  }

  /** Timers (and sleeps) waiting on this clock. */
  get pending(): number {
    return this.timers.length;
  }

  setTimeout(callback: () => void, ms: number): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.current + Math.max(0, ms), callback, id });
    return () => {
      this.timers = this.timers.filter((t) => t.id !== id);
    };
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) {
        break;
      }
      this.timers = this.timers.filter((t) => t.id !== due.id);
      this.current = Math.max(this.current, due.at);
      due.callback();
    }
    this.current = target;
  }
}

/** Resolves after `ms` on `clock` (its `sleep`, else one of its timers), rejects on `signal`. */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (clock.sleep) {
    return clock.sleep(ms, signal);
  }
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
