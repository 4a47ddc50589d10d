import { readdirSync, readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll } from "vitest";
import { ManualClock, type ProcessManager, type ProcessManagerOptions } from "../src/index.js";
import { runTool, type ToolContext, type ToolDefinition } from "../src/tools.js";
import { acpClient, type AcpClientRig } from "./acp-support.js";
import { localRig, until } from "./support.js";

/** A manager over one provider. */
export interface ContractRig {
  manager: ProcessManager;
  clock: ManualClock | undefined;
  dispose(): Promise<void>;
}
type RigOptions = Partial<ProcessManagerOptions> & { manualClock?: boolean };
type Provide = (options?: RigOptions) => ContractRig;

/**
 * The two providers every contract runs over: local (an in-process host) and ACP (our host behind
 * the SDK, over real stdio). Call at the top level of a file; use inside `describe.each(PROVIDERS)`.
 */
export function contractProviders(): [string, () => Promise<Provide>][] {
  let client: AcpClientRig | undefined;
  afterAll(async () => {
    await client?.dispose();
  });
  return [
    [
      "local",
      async () =>
        (options = {}) =>
          localRig(options),
    ],
    [
      "acp (stdio client)",
      async () => {
        client ??= await acpClient();
        return ({ manualClock, ...options } = {}) => {
          const clock = manualClock ? new ManualClock(1_000_000) : undefined;
          const { manager } = client!.managerFor({ ...options, ...(clock ? { clock } : {}) });
          return { manager, clock, dispose: () => manager.dispose() };
        };
      },
    ],
  ];
}

/** Per test: a rig (made on first use, or with `use(options)`), disposed after the test. */
export function contractRigs(setup: () => Promise<Provide>): {
  use(options?: RigOptions): ContractRig;
  ctx(extra?: Partial<ToolContext>): ToolContext;
  call(
    tool: ToolDefinition,
    input: unknown,
    extra?: Partial<ToolContext>,
  ): Promise<Record<string, any>>;
  refusal(
    tool: ToolDefinition,
    input: unknown,
    extra?: Partial<ToolContext>,
  ): Promise<{ code: string; message: string }>;
} {
  let provide!: Provide;
  let rig: ContractRig | undefined;
  beforeAll(async () => {
    provide = await setup();
  });
  afterEach(async () => {
    await rig?.dispose();
    rig = undefined;
  });
  const use = (options: RigOptions = {}): ContractRig => (rig ??= provide(options));
  const ctx = (extra: Partial<ToolContext> = {}): ToolContext => ({
    manager: use().manager,
    sessionId: "s",
    ...extra,
  });
  return {
    use,
    ctx,
    async call(tool, input, extra) {
      const outcome = await runTool(tool, ctx(extra), input);
      if (!outcome.ok) {
        throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
      }
      return outcome.result as Record<string, any>;
    },
    async refusal(tool, input, extra) {
      const outcome = await runTool(tool, ctx(extra), input);
      if (outcome.ok) {
        throw new Error(
          `expected ${tool.name} to refuse ${JSON.stringify(input)}, it answered ${JSON.stringify(outcome.result)}`,
        );
      }
      return outcome.error;
    },
  };
}

/** Live (not zombie) processes whose command line contains `marker`, from /proc (Linux). */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) {
      continue;
    }
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) {
        continue;
      }
      const state = /\) (\S)/.exec(readFileSync(`/proc/${entry}/stat`, "utf8"))?.[1];
      if (state !== "Z") {
        pids.push(Number(entry));
      }
    } catch {
      // The process ended between the listing and the read: it is not left over.
    }
  }
  return pids;
}

/** After the file: no process with `marker` in its command line is left (within a deadline). */
export function expectNoneLeft(marker: string): void {
  afterAll(async () => {
    await until(
      () => processesWith(marker).length === 0,
      `no process with ${marker} left (found ${processesWith(marker).join(", ")})`,
      10_000,
    );
  });
}

/** `promise`, or a failure saying what did not happen within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
