import type { ProviderCreateParams } from "../providers/types.js";
import type { RunRecord } from "./types.js";

/** How a run's terminal is opened, beyond what its record says. */
export interface RunLaunch {
  stdin: boolean;
  ptySize?: { cols: number; rows: number };
}

/** The provider's create request for a run. `args` omitted = the client's shell runs `command`. */
export function createParams(record: RunRecord, launch: RunLaunch, outputByteLimit: number | undefined): ProviderCreateParams {
  const pty = record.pty ? (launch.ptySize ?? true) : undefined;
  return {
    command: record.command,
    ...(record.args ? { args: record.args } : {}),
    ...(record.env ? { env: record.env } : {}),
    ...(record.cwd ? { cwd: record.cwd } : {}),
    ...(outputByteLimit !== undefined ? { outputByteLimit } : {}),
    ...(pty !== undefined ? { pty } : {}),
    ...(launch.stdin ? { stdin: true } : {}),
  };
}
