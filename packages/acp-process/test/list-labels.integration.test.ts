import { afterEach, expect, it } from "vitest";
import { localRig, type LocalRig } from "./support.js";

let rig: LocalRig | undefined;
afterEach(async () => {
  await rig?.dispose();
  rig = undefined;
});

it("list({ labels }) answers only runs carrying every label given, with that value, before the limit applies", async () => {
  rig = localRig({ maxRuns: 2_000 });
  const { manager } = rig;
  const tagged = await manager.start({
    sessionId: "s1",
    command: "true",
    labels: { call: "a", tool: "exec" },
  });
  await manager.wait(tagged.id);
  const others = [];
  for (let i = 0; i < 60; i++) {
    others.push(
      await manager.start({
        sessionId: "s1",
        command: "true",
        labels: { call: `b${i}`, tool: "exec" },
      }),
    );
  }
  await Promise.all(others.map((run) => manager.wait(run.id)));
  // Newest first, the tagged run is beyond a limit of 50 among all runs...
  expect(manager.list({ limit: 50 }).map((run) => run.id)).not.toContain(tagged.id);
  // ...but not among the runs its labels select.
  expect(manager.list({ labels: { call: "a" }, limit: 50 }).map((run) => run.id)).toEqual([
    tagged.id,
  ]);
  expect(manager.list({ labels: { call: "a", tool: "exec" } }).map((run) => run.id)).toEqual([
    tagged.id,
  ]);
  expect(manager.list({ labels: { call: "a", tool: "shell" } })).toEqual([]);
  expect(manager.list({ labels: { call: "b1" }, status: "running" })).toEqual([]);
});
