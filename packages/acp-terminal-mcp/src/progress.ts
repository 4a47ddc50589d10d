import type { ProcessManager, RunSnapshot } from "acp-process";
import type { Notification, ProgressToken } from "@modelcontextprotocol/server";

export interface ProgressOptions {
  token: ProgressToken;
  intervalMs: number;
  manager: ProcessManager;
  /** The runs the call started or waits on, still active. */
  runs: () => RunSnapshot[];
  notify: (notification: Notification) => Promise<void>;
}

const LAST_LINE_CHARS = 120;

/**
 * Sends `notifications/progress` every `intervalMs` while a call runs, also one that only waits
 * (a host that resets its timeout on progress then keeps waiting): progress is the elapsed
 * milliseconds (it must increase, and output may not), the message the runs' status, output bytes
 * and last line. No total: a command's length is not known.
 */
export function progressReporter(options: ProgressOptions): { stop(): void } {
  const startedAt = Date.now();
  let last = 0;
  const timer = setInterval(() => {
    const runs = options.runs();
    const progress = Math.max(last + 1, Date.now() - startedAt);
    last = progress;
    const message = runs.map((run) => describeRun(options.manager, run)).join("; ") || "working";
    options
      .notify({
        method: "notifications/progress",
        params: { progressToken: options.token, progress, message },
      })
      .catch(() => undefined /* the connection is gone; the call ends with it */);
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** One run in a line: its id, status, output bytes and last line. */
export function describeRun(manager: ProcessManager, run: RunSnapshot): string {
  const tail = manager.tail(run.id, { maxChars: LAST_LINE_CHARS * 2 }).text.trimEnd();
  const lastLine = tail.slice(tail.lastIndexOf("\n") + 1).slice(-LAST_LINE_CHARS);
  return `${run.id} ${run.status}, ${run.outputBytes} bytes of output${lastLine ? `: ${lastLine}` : ""}`;
}
