/**
 * Exact increments (`outputSince`): a background run polled through the ACP provider receives
 * each byte of output once, where whole snapshots repeat the retained tail on every poll. The
 * requester is wrapped to count the output text the agent actually receives.
 */
import { TerminalHost } from "acp-terminal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AcpTerminalProvider,
  LocalTerminalProvider,
  ProcessManager,
  type AcpRequester,
  type TerminalHostLike,
  type TerminalProvider,
} from "../src/index.js";
import { acpClient, type AcpClientRig } from "./acp-support.js";
import { nodeScript } from "./support.js";

const LINES = 150;
const WIDTH = 1000;
const OUTPUT_BYTES = LINES * WIDTH + "DONE\n".length;

/** Counts `terminal/output` calls and the UTF-8 bytes of the output text they returned. */
class CountingRequester implements AcpRequester {
  outputCalls = 0;
  sinceCalls = 0;
  receivedBytes = 0;

  constructor(private readonly inner: AcpRequester) {}

  async request<Response = unknown, Params = unknown>(
    method: string,
    params?: Params,
  ): Promise<Response> {
    const response = await this.inner.request<Response, Params>(method, params);
    if (method === "terminal/output") {
      this.outputCalls++;
      const meta = (params as { _meta?: Record<string, { sinceByte?: number }> })._meta;
      if (meta?.["acp-terminal"]?.sinceByte !== undefined) {
        this.sinceCalls++;
      }
      this.receivedBytes += Buffer.byteLength((response as { output: string }).output, "utf8");
    }
    return response;
  }
}

function withoutOutputSince(clientCapabilities: unknown): unknown {
  const caps = clientCapabilities as { _meta: Record<string, Record<string, unknown>> };
  return {
    ...caps,
    _meta: { "acp-terminal": { ...caps._meta["acp-terminal"], outputSince: false } },
  };
}

async function pacedRun(provider: TerminalProvider) {
  const manager = new ProcessManager({ provider, env: {}, sweepIntervalMs: 0 });
  try {
    const started = await manager.start({
      sessionId: "s1",
      ...nodeScript("process-paced.mjs", String(LINES), String(WIDTH), "4"),
    });
    const run = await manager.wait(started.id, { timeoutMs: 20_000 });
    const text = manager.store
      .allItems(run.id)
      .filter((item) => item.kind === "output")
      .map((item) => item.text)
      .join("");
    return { run, text };
  } finally {
    await manager.dispose();
  }
}

describe("exact increments through the ACP provider", () => {
  let client: AcpClientRig;
  beforeAll(async () => (client = await acpClient()));
  afterAll(() => client.dispose());

  it("receives each byte once with sinceByte, and the whole tail on every poll without it", async () => {
    const since = new CountingRequester(client.connection.client);
    const sinceProvider = new AcpTerminalProvider(since, {
      sessionId: "s1",
      clientCapabilities: client.clientCapabilities,
    });
    expect(sinceProvider.capabilities.outputSince).toBe(true);
    const incremental = await pacedRun(sinceProvider);
    expect(incremental.run.status).toBe("completed");
    expect(incremental.run.outputBytes).toBe(OUTPUT_BYTES);
    expect(incremental.run.lostBytes).toBe(0);
    expect(incremental.text.endsWith("DONE\n")).toBe(true);
    expect(since.sinceCalls).toBe(since.outputCalls);
    expect(since.outputCalls).toBeGreaterThan(3);
    expect(since.receivedBytes).toBe(OUTPUT_BYTES);

    const whole = new CountingRequester(client.connection.client);
    const wholeProvider = new AcpTerminalProvider(whole, {
      sessionId: "s1",
      clientCapabilities: withoutOutputSince(client.clientCapabilities),
    });
    expect(wholeProvider.capabilities).toMatchObject({ cursors: true, outputSince: false });
    const snapshots = await pacedRun(wholeProvider);
    expect(snapshots.text).toBe(incremental.text);
    expect(whole.sinceCalls).toBe(0);
    // Every poll repeats what came before: far more than the output itself crosses the wire.
    expect(whole.receivedBytes).toBeGreaterThan(3 * OUTPUT_BYTES);
  });
});

describe("exact increments through the local provider", () => {
  it("reads only new text from the host, and reports loss exactly from fromByte", async () => {
    const host = new TerminalHost({ killGraceMs: 500 });
    let receivedBytes = 0;
    let sinceCalls = 0;
    const counting: TerminalHostLike = {
      create: (owner, params) => host.create(owner, { ...params, outputByteLimit: 4096 }),
      output: (owner, id, options) => {
        if (options?.sinceByte !== undefined) {
          sinceCalls++;
        }
        const snapshot = host.output(owner, id, options);
        receivedBytes += Buffer.byteLength(snapshot.output, "utf8");
        return snapshot;
      },
      waitForExit: (owner, id) => host.waitForExit(owner, id),
      kill: (owner, id, signal) => host.kill(owner, id, signal),
      release: (owner, id) => host.release(owner, id),
    };
    try {
      // 4 KiB retained while 20000 lines flood: most output is dropped before a poll reads it.
      const provider = new LocalTerminalProvider(counting);
      const manager = new ProcessManager({ provider, env: {}, sweepIntervalMs: 0 });
      const started = await manager.start({
        sessionId: "s1",
        ...nodeScript("process-chatty.mjs", "20000", "40"),
      });
      const run = await manager.wait(started.id, { timeoutMs: 20_000 });
      await manager.dispose();
      expect(run.status).toBe("completed");
      expect(sinceCalls).toBeGreaterThan(0);
      expect(run.outputBytes + run.lostBytes).toBe(20000 * 41 + 5);
      expect(run.lostBytes).toBeGreaterThan(0);
      expect(run.lostUnknown).toBe(false);
      expect(receivedBytes).toBe(run.outputBytes);
    } finally {
      await host.dispose();
    }
  });
});
