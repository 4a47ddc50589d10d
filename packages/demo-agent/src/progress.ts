import { fenced } from "./format.js";
import { reportError } from "./report-error.js";
import type { DemoSession } from "./session.js";
import type { ToolCall } from "./tool-call.js";

/** A running tool call gets at most one output update per this many ms (2 per second). */
export const PROGRESS_INTERVAL_MS = 500;

/**
 * Keeps a running tool call's status current, for a client that does not render the embedded
 * terminal live, and in local mode, where the client has no terminal at all: when the run prints,
 * an `in_progress` update with its bounded tail (`outputTail`) follows
 * PROGRESS_INTERVAL_MS later, and at most one per interval after that. A command that ends within
 * the interval sends none. Driven by acp-process `output` events; stops at the run's `exit` event,
 * which acp-process emits exactly once for every run, before its tool call is finished. Not under
 * ACP v2, where the output goes to the client as the run's terminal chunks.
 */
export function followProgress(session: DemoSession, call: ToolCall, runId: string): void {
  // ACP v2: the run is a published terminal whose chunks the client renders live already.
  if (session.publisher !== undefined) {
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const send = (): void => {
    timer = undefined;
    void call
      .progress(fenced(session.outputTail(runId)))
      .catch((error: unknown) => reportError(`sending the progress of ${runId}`, error));
  };
  const unsubscribe = session.manager.subscribe((event) => {
    if (event.type === "exit" && event.run.id === runId) {
      clearTimeout(timer);
      unsubscribe();
    } else if (event.type === "output" && event.runId === runId) {
      timer ??= setTimeout(send, PROGRESS_INTERVAL_MS);
    }
  });
}
