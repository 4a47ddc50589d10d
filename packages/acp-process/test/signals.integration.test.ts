import { describe, expect, it } from "vitest";
import { LocalTerminalProvider, ProcessManager, type TerminalProvider } from "../src/index.js";
import { processKillTool, processTool, runTool, shellTool } from "../src/tools.js";
import { nodeScript, until, useLocalRigs, type LocalRig } from "./support.js";

const localRig = useLocalRigs();

async function ready(rig: LocalRig, runId: string): Promise<void> {
  await until(
    async () => (await rig.manager.read(runId)).items.some((i) => i.text.includes("ready")),
    "ready",
  );
}

describe("kill signals", () => {
  it("an unknown signal name is refused at once by the manager and by every tool surface", async () => {
    const rig = localRig();
    const run = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ready-then-hang.mjs"),
    });
    await expect(rig.manager.kill(run.id, { signal: "SIGFOO" })).rejects.toThrow(
      /Invalid signal: expected one of SIGINT, SIGTERM, SIGKILL.*received "SIGFOO"/,
    );
    const ctx = { manager: rig.manager, sessionId: "s" };
    for (const [tool, input] of [
      [processKillTool, { id: run.id, signal: "SIGFOO" }],
      [processTool, { action: "kill", sessionId: run.id, signal: "SIGFOO" }],
      [shellTool, { action: "kill", id: run.id, signal: "SIGFOO" }],
    ] as const) {
      const outcome = await runTool(tool as typeof processKillTool, ctx, input as never);
      expect(outcome).toMatchObject({
        ok: false,
        error: { code: "invalid_params", message: expect.stringMatching(/signal.*SIGFOO/) },
      });
    }
    expect(rig.manager.get(run.id).status).toBe("running");
  });

  it("SIGKILL goes through the signal capability when the provider has one", async () => {
    const rig = localRig();
    const run = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ready-then-hang.mjs"),
    });
    await ready(rig, run.id);
    const killed = await rig.manager.kill(run.id, { signal: "SIGKILL" });
    expect(killed).toMatchObject({ status: "killed", signal: "SIGKILL" });
  });

  it("a signal the provider refuses escalates to its kill at once, not after forceAfterMs", async () => {
    const rig = localRig();
    const local = new LocalTerminalProvider(rig.host);
    const refusing: TerminalProvider = Object.assign(
      Object.create(local) as LocalTerminalProvider,
      {
        signal: () => Promise.reject(new Error("signals are switched off")),
      },
    );
    const manager = new ProcessManager({ provider: refusing, env: {}, sweepIntervalMs: 0 });
    try {
      const run = await manager.start({
        sessionId: "s",
        ...nodeScript("process-ready-then-hang.mjs"),
      });
      await until(
        async () => (await manager.read(run.id)).items.some((i) => i.text.includes("ready")),
        "ready",
      );
      const killed = await manager.kill(run.id, { signal: "SIGINT", forceAfterMs: 60_000 });
      expect(killed.status).toBe("killed");
      expect(killed.durationMs).toBeLessThan(30_000);
      const notices = (await manager.read(run.id)).items
        .filter((i) => i.kind === "notice")
        .map((i) => i.text);
      expect(notices.join("\n")).toMatch(/refused: signals are switched off/);
    } finally {
      await manager.dispose();
    }
  });

  it("a command that ignores the signal is forced after force_after, and a notice says so", async () => {
    const rig = localRig();
    const run = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ignores-int.mjs"),
    });
    await ready(rig, run.id);
    const killed = await runTool(
      processKillTool,
      { manager: rig.manager, sessionId: "s" },
      { id: run.id, signal: "SIGINT", force_after: 0.3 },
    );
    expect(killed).toMatchObject({ ok: true, result: { state: "killed", signal: "SIGKILL" } });
    const snapshot = rig.manager.get(run.id);
    expect(snapshot.endedAtMs! - snapshot.startedAtMs!).toBeGreaterThanOrEqual(300);
    const texts = (await rig.manager.read(run.id)).items.map((i) => i.text).join("");
    expect(texts).toContain("ignored SIGINT");
    expect(texts).toMatch(/SIGINT did not end the command within 300 ms; forcing it with SIGKILL/);
  });
});

describe("a provider whose output keeps failing", () => {
  it("is given up after repeated failures: the run fails with the reason instead of being polled forever", async () => {
    const rig = localRig();
    const local = new LocalTerminalProvider(rig.host);
    // Without pushed output (as over ACP): the run reads by polling.
    const broken: TerminalProvider = Object.assign(Object.create(local) as LocalTerminalProvider, {
      output: () => Promise.reject(new Error("connection reset")),
      stream: undefined,
    });
    const manager = new ProcessManager({
      provider: broken,
      env: {},
      sweepIntervalMs: 0,
      tuning: { pollMinMs: 1, pollMaxMs: 2 },
    });
    try {
      const run = await manager.start({
        sessionId: "s",
        ...nodeScript("process-ready-then-hang.mjs"),
      });
      const ended = await manager.wait(run.id, { timeoutMs: 25_000 });
      expect(ended).toMatchObject({ status: "failed", cause: "provider_error" });
      expect(ended.error).toMatch(
        /^reading the output failed 10 times in a row \(connection reset\); the command was stopped: /,
      );
      const notices = manager.store
        .allItems(run.id)
        .filter((i) => i.kind === "notice")
        .map((i) => i.text);
      expect(notices[0]).toBe(
        "[acp-process] reading the output failed (connection reset); retrying",
      );
    } finally {
      await manager.dispose();
    }
  });
});

describe("a provider whose output stops answering", () => {
  it("does not keep a run that exited from settling: each final read is bounded by callWaitMs", async () => {
    const rig = localRig();
    const local = new LocalTerminalProvider(rig.host);
    const silent: TerminalProvider = Object.assign(Object.create(local) as LocalTerminalProvider, {
      output: () => new Promise<never>(() => {}),
    });
    const manager = new ProcessManager({
      provider: silent,
      env: {},
      sweepIntervalMs: 0,
      tuning: { callWaitMs: 300 },
    });
    try {
      const run = await manager.start({ sessionId: "s", command: "true" });
      const ended = await manager.wait(run.id, { timeoutMs: 10_000 });
      expect(ended).toMatchObject({ status: "completed", exitCode: 0 });
    } finally {
      await manager.dispose();
    }
  });
});
