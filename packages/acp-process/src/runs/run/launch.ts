import type { ProviderCreateParams } from "../../providers/types.js";
import { hasResourceLimits, wrapWithLimits } from "./resource-limits.js";
import type { RunRecord } from "../../model/run-record.js";
import type { RunSnapshot } from "../../model/run-events.js";

/** How a run's terminal is opened, beyond what its record says. */
export interface RunLaunch {
  stdin: boolean;
  ptySize?: { cols: number; rows: number };
  /** Called once the terminal exists; the terminal is not released before its promise settles. */
  onStart?: (run: RunSnapshot) => void | Promise<void>;
}

/** The provider's create request for a run. `args` omitted = the client's shell runs `command`. */
export function createParams(
  record: RunRecord,
  launch: RunLaunch,
  outputByteLimit: number | undefined,
): ProviderCreateParams {
  const pty = record.pty ? (launch.ptySize ?? true) : undefined;
  const program = hasResourceLimits(record.resourceLimits)
    ? wrapWithLimits(record.command, record.args, record.resourceLimits)
    : { command: record.command, args: record.args };
  return {
    command: program.command,
    ...(program.args ? { args: program.args } : {}),
    ...(record.env ? { env: record.env } : {}),
    ...(record.cwd ? { cwd: record.cwd } : {}),
    ...(outputByteLimit !== undefined ? { outputByteLimit } : {}),
    ...(pty !== undefined ? { pty } : {}),
    ...(launch.stdin ? { stdin: true } : {}),
    ...(Object.keys(record.labels).length > 0 ? { labels: record.labels } : {}),
  };
}
