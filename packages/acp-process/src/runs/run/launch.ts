import type { ProviderCreateParams, TerminalProvider } from "../../providers/types.js";
import { withinMs } from "./deadline.js";
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

/**
 * Asks the provider for the run's terminal and returns its id; throws when the provider fails or
 * does not answer within `callWaitMs` (a terminal that appears after that is released: nobody
 * owns it).
 */
export async function createTerminal(
  provider: TerminalProvider,
  record: RunRecord,
  launch: RunLaunch,
  tuning: { callWaitMs: number; outputByteLimit: number | undefined },
): Promise<string> {
  const creating = provider.create(createParams(record, launch, tuning.outputByteLimit));
  const created = await withinMs(creating, tuning.callWaitMs);
  if (!created.ok) {
    creating.then((id) => provider.release(id)).catch(() => undefined /* it never existed */);
    throw new Error(`the client did not create the terminal within ${tuning.callWaitMs} ms`);
  }
  return created.value;
}
