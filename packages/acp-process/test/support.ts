import { TerminalHost } from "acp-terminal";
import { afterEach } from "vitest";
import { until as untilCondition } from "../../../test/support/until.js";
import {
  LocalTerminalProvider,
  ManualClock,
  ProcessManager,
  type ProcessManagerOptions,
  type RunEvent,
} from "../src/index.js";

/** The shared `until` (test/support/until.ts), called as this package's tests do: `what`, then the deadline. */
export function until<T>(
  predicate: () => T | Promise<T>,
  what: string,
  timeoutMs = 5000,
): Promise<NonNullable<T>> {
  return untilCondition(predicate, { message: what, timeoutMs, intervalMs: 5 });
}

export interface LocalRig {
  host: TerminalHost;
  manager: ProcessManager;
  clock: ManualClock | undefined;
  events: RunEvent[];
  dispose(): Promise<void>;
}

export function localRig(
  options: Partial<ProcessManagerOptions> & { manualClock?: boolean } = {},
): LocalRig {
  const host = new TerminalHost({ killGraceMs: 500 });
  const clock = options.manualClock ? new ManualClock(1_000_000) : undefined;
  const events: RunEvent[] = [];
  const manager = new ProcessManager({
    provider: new LocalTerminalProvider(host),
    env: {},
    sweepIntervalMs: 0,
    ...(clock ? { clock } : {}),
    ...options,
    onEvent: (event) => events.push(event),
  });
  return {
    host,
    manager,
    clock,
    events,
    async dispose() {
      await manager.dispose();
      await host.dispose();
    },
  };
}

/**
 * A `localRig` factory for one test file: every rig it makes is disposed after each test.
 * Call it at the top level of the file.
 */
export function useLocalRigs(): typeof localRig {
  const rigs: LocalRig[] = [];
  afterEach(async () => {
    await Promise.all(rigs.splice(0).map((rig) => rig.dispose()));
  });
  return (options) => {
    const rig = localRig(options);
    rigs.push(rig);
    return rig;
  };
}

export const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;

export function nodeScript(name: string, ...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [`${FIXTURES}${name}`, ...args] };
}
