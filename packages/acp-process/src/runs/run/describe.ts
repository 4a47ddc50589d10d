import { commandLine } from "../../providers/command-line.js";
import type { ProviderExitStatus } from "../../providers/types.js";
import type { RunRecord, RunStatus } from "../../model/run-record.js";
import type { RunSnapshot } from "../../model/run-events.js";

export { commandLine };

/** The command line for messages: at most 200 characters. */
export function displayCommand(record: Pick<RunRecord, "command" | "args">): string {
  const text = commandLine(record);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** The final status and message, from the first termination cause and the exit status. */
export function describeEnd(
  record: RunRecord,
  exit: ProviderExitStatus | null,
): { status: RunStatus; error: string | null } {
  const command = displayCommand(record);
  switch (record.cause) {
    case "timeout":
      return { status: "timed_out", error: `timed out after ${record.timeoutMs} ms: ${command}` };
    case "inactivity":
      return { status: "timed_out", error: `no output for ${record.idleTimeoutMs} ms: ${command}` };
    case "kill":
      return {
        status: "killed",
        error: `killed${exit?.signal ? ` (${exit.signal})` : ""}: ${command}`,
      };
    case "dispose":
      return {
        status: "killed",
        error: `killed because the process manager shut down: ${command}`,
      };
    case "spawn_error":
    case "provider_error":
      return { status: "failed", error: null };
    default:
      break;
  }
  if (exit?.exitCode === 0) {
    return { status: "completed", error: null };
  }
  if (exit?.signal) {
    return { status: "failed", error: `terminated by ${exit.signal}: ${command}` };
  }
  return { status: "failed", error: `exited with code ${exit?.exitCode ?? "unknown"}: ${command}` };
}

export function snapshotOf(record: RunRecord, nowMs: number): RunSnapshot {
  const durationMs =
    record.startedAtMs === null ? null : (record.endedAtMs ?? nowMs) - record.startedAtMs;
  return {
    ...record,
    args: record.args ? [...record.args] : null,
    labels: { ...record.labels },
    ...(record.notices ? { notices: [...record.notices] } : {}),
    durationMs,
  };
}
