import { messageOf } from "../errors.js";
import type { ProcessManager } from "../runs/manager/manager.js";
import { isFinished, streamOffset } from "../model/run-record.js";

export type WakeReason = "exit" | "output" | "match" | "input" | "timeout";

/**
 * Waits up to `timeoutMs` for the run to end, for output past byte `sinceBytes` (without a
 * `pattern`), or for new output to match `pattern` (a watcher, removed afterwards). Resolves with
 * what happened first; checks the run's state after subscribing, so nothing between the caller's
 * last look and the subscription is missed.
 */
export function waitForChange(
  manager: ProcessManager,
  runId: string,
  options: { sessionId: string; sinceBytes: number; timeoutMs: number; pattern?: string },
): Promise<{ woke: WakeReason; match?: string }> {
  const { sessionId, sinceBytes, pattern } = options;
  if (isFinished(manager.get(runId, { sessionId }).status)) {
    return Promise.resolve({ woke: "exit" });
  }
  return new Promise((resolve, reject) => {
    let watcherId: string | undefined;
    let done = false;
    const finish = (result: { woke: WakeReason; match?: string }): void => {
      if (done) {
        return;
      }
      done = true;
      unsubscribe();
      clearTimeout(timer);
      if (watcherId !== undefined) {
        try {
          manager.unwatch(runId, watcherId, { sessionId });
        } catch {
          // the run ended meanwhile: its watchers went with it
        }
      }
      resolve(result);
    };
    const unsubscribe = manager.subscribe((event) => {
      if (event.type === "exit" && event.run.id === runId) {
        finish({ woke: "exit" });
      } else if (event.type === "input" && event.run.id === runId && event.run.inputRequired) {
        finish({ woke: "input" });
      } else if (event.type === "watch" && event.runId === runId && event.watcherId === watcherId) {
        finish({ woke: "match", match: event.match });
      } else if (
        pattern === undefined &&
        event.type === "output" &&
        event.runId === runId &&
        event.item.kind === "output" &&
        event.item.byteOffset + Buffer.byteLength(event.item.text) > sinceBytes
      ) {
        finish({ woke: "output" });
      }
    });
    const timer = setTimeout(() => finish({ woke: "timeout" }), options.timeoutMs);
    try {
      if (pattern !== undefined) {
        watcherId = manager.watch(runId, { regex: pattern, once: true }, { sessionId });
      }
    } catch (error) {
      const now = manager.get(runId, { sessionId });
      if (isFinished(now.status)) {
        return finish({ woke: "exit" });
      }
      done = true;
      unsubscribe();
      clearTimeout(timer);
      reject(error instanceof Error ? error : new Error(messageOf(error)));
      return;
    }
    const now = manager.get(runId, { sessionId });
    if (isFinished(now.status)) {
      finish({ woke: "exit" });
    } else if (pattern === undefined && streamOffset(now) > sinceBytes) {
      finish({ woke: "output" });
    } else if (now.inputRequired) {
      finish({ woke: "input" });
    }
  });
}
