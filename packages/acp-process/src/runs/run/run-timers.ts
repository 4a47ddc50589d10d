import type { Clock } from "../../base/clock.js";

/**
 * A run's hard and inactivity timeouts on the injected clock. Both are cancelled when the run's
 * AbortSignal aborts (the run settled). The inactivity timer is not re-armed per chunk: it fires,
 * checks the time since the last output and re-arms for the remainder.
 */
export function armRunTimers(options: {
  clock: Clock;
  signal: AbortSignal;
  timeoutMs: number;
  idleTimeoutMs: number;
  lastOutputAtMs: () => number;
  onTimeout: (cause: "timeout" | "inactivity") => void;
}): void {
  const { clock, signal, timeoutMs, idleTimeoutMs } = options;
  if (signal.aborted) {
    return;
  }
  let cancelHard = (): void => {};
  let cancelIdle = (): void => {};
  signal.addEventListener("abort", () => (cancelHard(), cancelIdle()), { once: true });

  if (timeoutMs > 0) {
    cancelHard = clock.setTimeout(() => options.onTimeout("timeout"), timeoutMs);
  }

  if (idleTimeoutMs > 0) {
    const check = (): void => {
      if (signal.aborted) {
        return;
      }
      const idleMs = clock.now() - options.lastOutputAtMs();
      if (idleMs >= idleTimeoutMs) {
        options.onTimeout("inactivity");
      } else {
        cancelIdle = clock.setTimeout(check, idleTimeoutMs - idleMs);
      }
    };
    cancelIdle = clock.setTimeout(check, idleTimeoutMs);
  }
}
