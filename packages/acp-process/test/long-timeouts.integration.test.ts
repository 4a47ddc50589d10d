import { describe, expect, it } from "vitest";
import { systemClock } from "../src/index.js";
import { execTool, runTool } from "../src/tools.js";
import { useLocalRigs, until } from "./support.js";

const localRig = useLocalRigs();

// Node fires a timer longer than 2^31-1 ms (24.8 days) after 1 ms; these runs would time out at once.
describe("timeouts longer than Node's timer range", () => {
  it("a run with a 29-day timeout completes instead of timing out at once", async () => {
    const rig = localRig();
    let fired = false;
    const cancel = systemClock.setTimeout(() => (fired = true), 2.5e9);
    const { run } = await rig.manager.run({
      sessionId: "s",
      command: "sleep 0.2; echo done",
      timeoutMs: 2.5e9,
    });
    expect(run.status).toBe("completed");
    expect(fired).toBe(false);
    cancel();
  });

  it("exec with a timeout within 30 days completes; beyond it is refused", async () => {
    const rig = localRig();
    const ctx = { manager: rig.manager, sessionId: "s" };
    const done = await runTool(execTool, ctx, { command: "sleep 0.2; echo done", timeout: 2.5e6 });
    expect(done).toMatchObject({ ok: true, result: { status: "completed", output: "done\n" } });
    const refused = await runTool(execTool, ctx, { command: "true", timeout: 1e7 });
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(JSON.stringify(refused)).toMatch(/timeout/);
  });

  it("start refuses a timeout beyond 30 days, naming the option", async () => {
    const rig = localRig();
    await expect(
      rig.manager.start({ sessionId: "s", command: "true", timeoutMs: 3e9 }),
    ).rejects.toThrow(/Invalid timeoutMs: expected a number of milliseconds from 0 to 2592000000/);
  });
});

describe("exec yieldMs", () => {
  it("is clamped to 120000 ms: a huge yieldMs still returns 'running' after two minutes", async () => {
    const rig = localRig({ manualClock: true });
    const pending = runTool(
      execTool,
      { manager: rig.manager, sessionId: "s" },
      { command: "sleep 30", yieldMs: 3e9 },
    );
    await until(() => rig.manager.list().find((r) => r.status === "running"), "the run");
    rig.clock!.advance(119_999);
    let settled = false;
    void pending.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    rig.clock!.advance(1);
    expect(await pending).toMatchObject({ ok: true, result: { status: "running" } });
  });
});
