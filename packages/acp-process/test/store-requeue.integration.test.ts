import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type RunEvent, type RunSnapshot } from "../src/index.js";
import { SqliteRunStore } from "../src/sqlite.js";
import {
  crashAgent,
  killOrphans,
  processesWith,
  readAll,
  reopen,
  startAgent,
  type Cleanups,
} from "./crash-support.js";
import { runRecord, tempDb } from "./store-support.js";
import { localRig } from "./support.js";

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

function storedStatus(path: string, runId: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare(
        "SELECT status, json_extract(record, '$.attempts') AS attempts FROM exec_runs WHERE id = ?",
      )
      .get(runId);
  } finally {
    db.close();
  }
}

describe("recover() with the requeue policy keeps the run id and counts attempts", () => {
  it("a run interrupted by SIGKILL is started again by each restart under the same id, attempts counted and stored, its history kept, and lost once it had maxAttempts", async () => {
    const crashed = await crashAgent(cleanups, "streaming", 200);
    await killOrphans(crashed.marker);
    const { runId, path } = crashed;

    // Restarts 1 and 2 (real agent processes): each claims the run under its id, and is SIGKILLed while it runs.
    for (const attempt of [2, 3]) {
      const agent = startAgent(cleanups, "process-agent-sqlite-requeue.mjs", [path, "3"]);
      const recovered = JSON.parse(
        (await agent.waitFor((l) => l.startsWith("RECOVERED "), "RECOVERED")).slice(
          "RECOVERED ".length,
        ),
      ) as unknown;
      expect(recovered).toEqual({ lost: [], requeued: [{ id: runId, attempt }], notified: [] });
      expect(await agent.waitFor((l) => l.startsWith("CLAIMED "), "CLAIMED")).toBe(
        `CLAIMED ${runId} ${attempt} running`,
      );
      await agent.kill();
      expect(storedStatus(path, runId)).toEqual({ status: "running", attempts: attempt });
      await killOrphans(crashed.marker);
    }

    // Restart 3: the run had its 3 attempts, so it is lost, and nothing is started.
    const events: RunEvent[] = [];
    const { manager } = reopen(cleanups, path, events);
    const report = await manager.recover({ onRunning: "requeue", maxAttempts: 3 });
    expect(report).toEqual({ lost: [runId], requeued: [], notified: [runId] });
    expect(manager.get(runId)).toMatchObject({
      status: "lost",
      attempts: 3,
      error: expect.stringContaining("not started again: it had 3 of at most 3 attempts"),
    });
    expect(processesWith(crashed.marker)).toEqual([]);

    // One history, one seq numbering: the first attempt's acknowledged items, then each restart's notice and output.
    const history = await readAll(manager, runId);
    expect(history.map((i) => i.seq)).toEqual([...Array(history.length).keys()]);
    expect(history.slice(0, crashed.ackedSeq + 1).every((i) => i.kind === "output")).toBe(true);
    expect(history.filter((i) => i.kind === "notice").map((i) => i.text)).toEqual([
      expect.stringContaining("started again under the same id as attempt 2 of at most 3"),
      expect.stringContaining("started again under the same id as attempt 3 of at most 3"),
      expect.stringContaining("not started again: it had 3 of at most 3 attempts"),
    ]);
    expect(history.filter((i) => i.kind === "output" && /^pid \d+/.test(i.text))).toHaveLength(3);
    expect(events.filter((e) => e.type === "exit")).toHaveLength(1);
  });

  it("the run to claim is stored as queued, with its attempt counted, before it starts, and a queued run left by a restart is claimed", async () => {
    const path = tempDb(cleanups, "acp-process-requeue-");
    const seed = new SqliteRunStore(path);
    seed.putRun(runRecord("interrupted"), { urgent: true });
    // As a restart that died between storing its claim and starting it leaves a run.
    seed.putRun(
      runRecord("claimed-then-crashed", {
        status: "queued",
        attempts: 2,
        startedAtMs: null,
        terminalId: null,
        createdAtMs: 2,
      }),
      { urgent: true },
    );
    seed.close();
    const storedWhenQueued: unknown[] = [];
    const events: RunEvent[] = [];
    const { manager } = reopen(cleanups, path, events);
    manager.subscribe(
      (e) =>
        e.type === "status" &&
        e.run.status === "queued" &&
        storedWhenQueued.push(storedStatus(path, e.run.id)),
    );
    const report = await manager.recover({ onRunning: "requeue" });
    expect(report.requeued).toEqual([
      { id: "interrupted", attempt: 2 },
      { id: "claimed-then-crashed", attempt: 3 },
    ]);
    expect(storedWhenQueued).toEqual([
      { status: "queued", attempts: 2 },
      { status: "queued", attempts: 3 },
    ]);
    await expect(manager.wait("claimed-then-crashed")).resolves.toMatchObject({
      status: "completed",
      attempts: 3,
    });
    expect((await manager.read("claimed-then-crashed")).items.map((i) => i.text)).toEqual([
      expect.stringContaining(
        "the agent restarted while this run was queued; started again under the same id as attempt 3 of at most 3",
      ),
      "again\n",
    ]);
  });

  it("a run that already had maxAttempts starts is marked lost, not started again, saying why", async () => {
    const path = tempDb(cleanups, "acp-process-requeue-");
    const seed = new SqliteRunStore(path);
    seed.putRun(runRecord("tired", { attempts: 3 }), { urgent: true });
    seed.close();
    const events: RunEvent[] = [];
    const { manager } = reopen(cleanups, path, events);
    const report = await manager.recover({ onRunning: "requeue" });
    expect(report).toEqual({ lost: ["tired"], requeued: [], notified: ["tired"] });
    expect(manager.get("tired")).toMatchObject({
      status: "lost",
      attempts: 3,
      error: expect.stringContaining(
        "not started again: it had 3 of at most 3 attempts (recovery policy requeue): echo again",
      ),
    });
    expect(events.filter((e) => e.type === "exit")).toHaveLength(1);
  });

  it("a run the manager cannot take now (queue full) is marked lost with the reason, and its stored history stays", async () => {
    const path = tempDb(cleanups, "acp-process-requeue-");
    const seed = new SqliteRunStore(path);
    for (const id of ["first", "second"]) {
      seed.putRun(
        runRecord(id, {
          command: "sleep 30",
          createdAtMs: id === "first" ? 1 : 2,
          nextSeq: 1,
          outputBytes: 4,
        }),
      );
      seed.appendItems(id, [{ seq: 0, kind: "output", text: `${id}\n`, atMs: 1, byteOffset: 0 }]);
    }
    seed.close();
    const store = new SqliteRunStore(path);
    const rig = localRig({ store, limits: { maxConcurrentPerSession: 1, maxQueuedRuns: 0 } });
    cleanups.push(async () => (await rig.dispose(), store.close()));
    const report = await rig.manager.recover({ onRunning: "requeue" });
    expect(report.requeued).toEqual([{ id: "first", attempt: 2 }]);
    expect(report.lost).toEqual(["second"]);
    const refused: RunSnapshot = rig.manager.get("second");
    expect(refused).toMatchObject({
      status: "lost",
      error: expect.stringMatching(
        /could not start this run again \(.*maxQueuedRuns 0.*\): sleep 30/,
      ),
    });
    expect(
      (await rig.manager.read("second")).items.map((i) => [i.seq, i.kind, i.text.slice(0, 7)]),
    ).toEqual([
      [0, "output", "second\n"],
      [1, "notice", "[acp-pr"],
      [2, "notice", "[acp-pr"],
    ]);
    expect(rig.manager.get("first").status).toBe("running");
  });

  it("without the policy, interrupted runs stay lost and nothing is started (the default)", async () => {
    const path = tempDb(cleanups, "acp-process-requeue-");
    const seed = new SqliteRunStore(path);
    seed.putRun(runRecord("old"), { urgent: true });
    seed.close();
    const { manager } = reopen(cleanups, path, []);
    expect(await manager.recover()).toEqual({ lost: ["old"], requeued: [], notified: ["old"] });
    expect(manager.get("old")).toMatchObject({ status: "lost", attempts: 1 });
    expect(storedStatus(path, "old")).toEqual({ status: "lost", attempts: 1 });
  });
});
