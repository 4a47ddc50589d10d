import { SUPPORTED_SIGNALS } from "acp-terminal/protocol";
import { ProcessError } from "../../base/errors.js";
import type { RunSnapshot } from "../../model/run-events.js";
import type { Run } from "../run/run.js";
import type { KillOptions } from "./options.js";

/** The signal names a run can be sent, as strings to look a requested name up in. */
const SIGNAL_NAMES: readonly string[] = SUPPORTED_SIGNALS;

/** Refuses a signal name that is not one of acp-terminal's SUPPORTED_SIGNALS (in any case). */
export function checkSignalName(signal: string | undefined): void {
  if (signal !== undefined && !SIGNAL_NAMES.includes(signal.toUpperCase())) {
    throw ProcessError.invalidParams("signal", `one of ${SUPPORTED_SIGNALS.join(", ")}`, signal);
  }
}

/**
 * Ends a live run on request (see `Run.terminateWithReport`): the signals delivered, and the run
 * once it has settled, or as it is when a signal without escalation left it running.
 */
export async function stopRun(
  run: Run,
  options: KillOptions,
): Promise<{ run: RunSnapshot; signalsSent: string[] }> {
  const report = await run.terminateWithReport("kill", {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.forceAfterMs !== undefined ? { forceAfterMs: options.forceAfterMs } : {}),
    ...(options.escalate !== undefined ? { escalate: options.escalate } : {}),
  });
  return {
    run: report.settled ? await run.settled : run.snapshot(),
    signalsSent: report.signalsSent,
  };
}
