import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { TerminalHost } from "acp-terminal";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { LocalTerminalProvider, ProcessManager, type RunEvent } from "../src/index.js";
import { SqliteRunStore } from "../src/sqlite.js";
import { reopen } from "./crash-support.js";
import { runRecord, tempDb } from "./store-support.js";
import { FIXTURES } from "./support.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

describe("SqliteRunStore", () => {
  it("batches appends, flushes before reads and keeps only the retention window", () => {
    const path = tempDb(cleanups, "acp-process-store-");
    const store = new SqliteRunStore(path, {
      retention: { maxItemsPerRun: 100 },
      flushItems: 1_000_000,
      flushIntervalMs: 60_000,
    });
    const other = new Database(path, { readonly: true });
    cleanups.push(() => (other.close(), store.close()));
    store.putRun(runRecord("r1", { nextSeq: 250 }));
    for (let seq = 0; seq < 250; seq++) {
      store.appendItems("r1", [
        { seq, kind: "output", text: `line ${seq}\n`, atMs: seq, byteOffset: 0 },
      ]);
    }
    // Nothing is written per append: another connection sees no item before the flush.
    expect(other.prepare("SELECT COUNT(*) AS n FROM exec_run_items").get()).toEqual({ n: 0 });
    const page = store.readItems("r1", { sinceSeq: 0, limit: 10 });
    expect(page.firstSeq).toBe(150);
    expect(page.items.map((i) => i.seq)).toEqual([
      150, 151, 152, 153, 154, 155, 156, 157, 158, 159,
    ]);
    expect(store.allItems("r1")).toHaveLength(100);
  });

  it("a reopened store prunes only what retention allows: recover()'s notice costs a run at maxItemsPerRun exactly its oldest item", async () => {
    const path = tempDb(cleanups, "acp-process-store-");
    const seed = new SqliteRunStore(path, { retention: { maxItemsPerRun: 100 } });
    for (const [id, count] of [
      ["full", 100],
      ["half", 50],
    ] as const) {
      seed.putRun(runRecord(id, { nextSeq: count }));
      seed.appendItems(
        id,
        Array.from({ length: count }, (_, seq) => ({
          seq,
          kind: "output" as const,
          text: `line ${seq}\n`,
          atMs: seq,
          byteOffset: 0,
        })),
      );
    }
    seed.close();
    const store = new SqliteRunStore(path, { retention: { maxItemsPerRun: 100 } });
    const host = new TerminalHost();
    const manager = new ProcessManager({
      provider: new LocalTerminalProvider(host),
      store,
      env: {},
      sweepIntervalMs: 0,
    });
    cleanups.push(async () => (await manager.dispose(), await host.dispose(), store.close()));
    expect((await manager.recover()).lost).toEqual(["full", "half"]);
    const seqsOf = (id: string) => store.allItems(id).map((i) => i.seq);
    expect(seqsOf("full")).toEqual([...Array(100).keys()].map((k) => k + 1));
    expect(seqsOf("half")).toEqual([...Array(51).keys()]);
  });

  it("keeps a finished run and its output across a reopen", async () => {
    const path = tempDb(cleanups, "acp-process-store-");
    const first = reopen(cleanups, path, []);
    const { run } = await first.manager.run({ sessionId: "s", command: "printf 'a\\nb\\n'" });
    expect(run.status).toBe("completed");
    first.store.close();
    const second = reopen(cleanups, path, []);
    expect(second.manager.get(run.id)).toMatchObject({ status: "completed", exitCode: 0 });
    expect((await second.manager.lines(run.id)).lines).toEqual(["a", "b"]);
    expect(second.manager.tail(run.id, { maxChars: 3 })).toEqual({
      text: "\nb\n",
      truncated: true,
    });
    expect(second.store.lastItems(run.id, 1).map((i) => i.seq)).toEqual([run.nextSeq - 1]);
  });

  it("survives SIGKILL of the agent: opens cleanly, loses no acknowledged item, marks the run lost once", async () => {
    const path = tempDb(cleanups, "acp-process-store-");
    const agent = spawn(process.execPath, [`${FIXTURES}process-agent-sqlite.mjs`, path, "30"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => agent.once("exit", resolve));
    cleanups.push(async () => {
      agent.kill("SIGKILL");
      await exited;
    });
    const lines = createInterface({ input: agent.stdout! });
    const ack = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("no ACK from the agent within 10000 ms")),
        10_000,
      );
      lines.on("line", (line) => line.startsWith("ACK ") && (clearTimeout(timer), resolve(line)));
    });
    const [, runId, lastSeq] = ack.split(" ");
    agent.kill("SIGKILL");
    await exited;

    const events: RunEvent[] = [];
    const { manager, store } = reopen(cleanups, path, events);
    const items = store.allItems(runId!);
    const tickerPid = Number(/^pid (\d+)/.exec(items[0]!.text)?.[1]);
    // The ticker was in its own process group; the dead agent cannot kill it, so we do.
    if (tickerPid > 0) {
      try {
        process.kill(tickerPid, "SIGKILL");
      } catch {
        // Already gone: its stdout broke when the agent died, which ends it.
      }
    }
    expect(items.map((i) => i.seq).slice(0, Number(lastSeq) + 1)).toEqual([
      ...Array(Number(lastSeq) + 1).keys(),
    ]);

    const report = await manager.recover();
    expect(report.lost).toEqual([runId]);
    expect(report.requeued).toEqual([]);
    const lost = manager.get(runId!);
    expect(lost.status).toBe("lost");
    expect(lost.error).toMatch(
      /the agent restarted while this run was running; its outcome is unknown/,
    );
    expect(events.filter((e) => e.type === "exit")).toHaveLength(1);

    const again = await manager.recover();
    expect(again).toEqual({ lost: [], requeued: [], notified: [] });
    expect(events.filter((e) => e.type === "exit")).toHaveLength(1);
  });

  it("re-queues interrupted runs only when asked: the same run id starts again as attempt 2, and says so", async () => {
    const path = tempDb(cleanups, "acp-process-store-");
    const seed = new SqliteRunStore(path);
    seed.putRun(runRecord("old", { command: "echo again", nextSeq: 1, outputBytes: 7 }), {
      urgent: true,
    });
    seed.appendItems("old", [{ seq: 0, kind: "output", text: "before\n", atMs: 1, byteOffset: 0 }]);
    seed.close();
    const events: RunEvent[] = [];
    const { manager } = reopen(cleanups, path, events);
    const report = await manager.recover({ onRunning: "requeue" });
    expect(report).toEqual({ lost: [], requeued: [{ id: "old", attempt: 2 }], notified: [] });
    const again = await manager.wait("old");
    expect(again).toMatchObject({
      id: "old",
      status: "completed",
      exitCode: 0,
      command: "echo again",
      attempts: 2,
      exitNotified: true,
    });
    const history = (await manager.read("old")).items;
    expect(history.map((i) => [i.seq, i.kind])).toEqual([
      [0, "output"],
      [1, "notice"],
      [2, "output"],
    ]);
    expect(history[1]!.text).toMatch(
      /the agent restarted while this run was running; started again under the same id as attempt 2 of at most 3 \(recovery policy requeue\): echo again/,
    );
    expect(history.map((i) => i.text).join("")).toMatch(/^before\n.*again\n$/s);
    expect(
      events
        .filter((e) => e.type === "status")
        .map((e) => e.type === "status" && [e.previous, e.run.status]),
    ).toEqual([
      ["running", "queued"],
      ["queued", "running"],
      ["running", "completed"],
    ]);
    expect(events.filter((e) => e.type === "exit")).toHaveLength(1);
    expect(manager.list().map((r) => r.id)).toEqual(["old"]);
  });
});
