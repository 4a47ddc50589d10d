import type { Clock } from "../../base/clock.js";
import type { RunEventSink, RunSnapshot } from "../../model/run-events.js";
import type { Run } from "../run/run.js";

export interface WaitOptions {
  sessionId?: string;
  /** Resolve with the run as it is after this long (on the manager's clock). */
  timeoutMs?: number;
  /** Resolve with the run as it is when this aborts. */
  signal?: AbortSignal;
  /** Resolve as soon as the run waits for input (`inputRequired`), at once if it already does. */
  untilInput?: boolean;
}

/** `ProcessManager.wait` for a live run: its end, or the first of the early ends asked for. */
export async function waitForRun(
  run: Run,
  options: WaitOptions,
  clock: Clock,
  subscribe: (listener: RunEventSink) => () => void,
): Promise<RunSnapshot> {
  if (options.timeoutMs === undefined && !options.signal && !options.untilInput) {
    return run.settled;
  }
  const undo: (() => void)[] = [];
  const early = new Promise<RunSnapshot>((resolve) => {
    const now = (): void => resolve(run.snapshot());
    if (options.timeoutMs !== undefined) {
      undo.push(clock.setTimeout(now, options.timeoutMs));
    }
    if (options.signal?.aborted) {
      now();
    } else if (options.signal) {
      options.signal.addEventListener("abort", now, { once: true });
      undo.push(() => options.signal?.removeEventListener("abort", now));
    }
    if (options.untilInput) {
      if (run.record.inputRequired) {
        now();
      }
      undo.push(
        subscribe((event) => {
          if (event.type === "input" && event.run.id === run.record.id && event.run.inputRequired) {
            now();
          }
        }),
      );
    }
  });
  try {
    return await Promise.race([run.settled, early]);
  } finally {
    for (const step of undo) {
      step();
    }
  }
}
