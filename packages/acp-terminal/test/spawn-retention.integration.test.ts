/** What a running pipe terminal keeps alive: not its spawn request (and so not its copy of the env). */
import { setImmediate as nextTurn } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, it } from "vitest";
import { spawnWithPipes } from "../src/spawn/pipes.js";
import type { SpawnedProcess, SpawnRequest } from "../src/spawn/types.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const controller = new AbortController();

/** Starts `sleep 30` with pipes; returns the process and weak references to its request and env. */
async function start(): Promise<{
  spawned: SpawnedProcess;
  request: WeakRef<SpawnRequest>;
  env: WeakRef<object>;
}> {
  const request: SpawnRequest = {
    file: "sleep",
    args: ["30"],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdin: false,
    exitDrainGraceMs: 100,
    maxPendingStdinBytes: 1024,
    onData: () => {},
    signal: controller.signal,
  };
  const spawned = await spawnWithPipes(request);
  return { spawned, request: new WeakRef(request), env: new WeakRef(request.env) };
}

it("a running terminal does not keep its spawn request or its env alive", async () => {
  const { spawned, request, env } = await start();
  try {
    // WeakRef targets stay alive until the current job ends: let it end before collecting.
    await nextTurn();
    collectGarbage();
    expect(env.deref()).toBeUndefined();
    expect(request.deref()).toBeUndefined();
    expect(spawned.hasExited()).toBe(false);
  } finally {
    process.kill(-spawned.pid, "SIGKILL");
    await spawned.settled;
    controller.abort();
  }
});
