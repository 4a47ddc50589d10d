import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRunStore, type RetentionLimits, type RunItem, type RunStore } from "../src/index.js";
import { SqliteRunStore } from "../src/sqlite.js";
import { runRecord } from "./store-support.js";

/** The same cases over every RunStore: what the manager may rely on, whichever store it has. */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    cleanup();
  }
});

const stores: [string, (retention?: Partial<RetentionLimits>) => RunStore][] = [
  ["MemoryRunStore", (retention) => new MemoryRunStore(retention)],
  [
    "SqliteRunStore",
    (retention) => {
      const dir = mkdtempSync(join(tmpdir(), "acp-process-contract-"));
      const store = new SqliteRunStore(join(dir, "runs.db"), retention ? { retention } : {});
      cleanups.push(() => (store.close(), rmSync(dir, { recursive: true, force: true })));
      return store;
    },
  ],
];

function items(from: number, count: number, text = (seq: number) => `line ${seq}\n`): RunItem[] {
  return Array.from({ length: count }, (_, k): RunItem => ({
    seq: from + k,
    kind: "output",
    text: text(from + k),
    atMs: from + k,
    byteOffset: 0,
  }));
}

const seqs = (list: readonly RunItem[]) => list.map((item) => item.seq);

for (const [name, open] of stores) {
  describe(`RunStore contract: ${name}`, () => {
    it("a stored run reads back equal, as a copy that does not change the store", () => {
      const store = open();
      store.putRun(runRecord("r1", { labels: { tool: "exec" } }), { urgent: true });
      const read = store.getRun("r1")!;
      expect(read).toEqual(runRecord("r1", { labels: { tool: "exec" } }));
      read.status = "killed";
      expect(store.getRun("r1")!.status).toBe("running");
      expect(store.getRun("nope")).toBeUndefined();
    });

    it("putRun replaces the run; listRuns gives every run, oldest created first", () => {
      const store = open();
      store.putRun(runRecord("late", { createdAtMs: 20 }));
      store.putRun(runRecord("early", { createdAtMs: 10 }));
      store.putRun(runRecord("late", { createdAtMs: 20, status: "completed", exitCode: 0 }));
      expect(store.listRuns().map((r) => [r.id, r.status])).toEqual([
        ["early", "running"],
        ["late", "completed"],
      ]);
    });

    it("listRuns with a filter gives copies of only the runs it takes, oldest first, after it saw every run", () => {
      const store = open();
      store.putRun(runRecord("c", { createdAtMs: 30, labels: { call: "1" } }));
      store.putRun(runRecord("a", { createdAtMs: 10, labels: { call: "1" } }));
      store.putRun(runRecord("b", { createdAtMs: 20, labels: { call: "2" } }));
      const seen: string[] = [];
      const taken = store.listRuns((record) => {
        seen.push(record.id);
        return record.labels.call === "1";
      });
      expect(taken.map((r) => r.id)).toEqual(["a", "c"]);
      expect(seen.sort()).toEqual(["a", "b", "c"]);
      taken[0]!.status = "killed";
      expect(store.getRun("a")!.status).toBe("running");
      expect(store.listRuns(() => false)).toEqual([]);
    });

    it("items read back in seq order from sinceSeq (inclusive), at most limit of them", () => {
      const store = open();
      store.putRun(runRecord("r1", { nextSeq: 30 }));
      store.appendItems("r1", items(0, 10));
      store.appendItems("r1", items(10, 20));
      const page = store.readItems("r1", { sinceSeq: 5, limit: 3 });
      expect(page).toEqual({ items: items(5, 3), firstSeq: 0 });
      expect(seqs(store.readItems("r1", { limit: 1000 }).items)).toEqual([...Array(30).keys()]);
      expect(store.readItems("r1", { sinceSeq: 30, limit: 10 }).items).toEqual([]);
      expect(store.readItems("r1", { sinceSeq: 0, limit: 0 }).items).toEqual([]);
    });

    it("a run with no items reads as empty, with firstSeq at its nextSeq", () => {
      const store = open();
      store.putRun(runRecord("r1", { nextSeq: 7 }));
      expect(store.readItems("r1", { limit: 10 })).toEqual({ items: [], firstSeq: 7 });
      expect(store.allItems("r1")).toEqual([]);
      expect(store.lastItems("r1", 5)).toEqual([]);
    });

    it("keeps the newest maxItemsPerRun items: the oldest go, sinceSeq below the window starts at its first item", () => {
      const store = open({ maxItemsPerRun: 100 });
      store.putRun(runRecord("r1", { nextSeq: 250 }));
      for (let seq = 0; seq < 250; seq += 10) {
        store.appendItems("r1", items(seq, 10));
      }
      const page = store.readItems("r1", { sinceSeq: 0, limit: 3 });
      expect(page.firstSeq).toBe(150);
      expect(seqs(page.items)).toEqual([150, 151, 152]);
      expect(seqs(store.allItems("r1"))).toEqual([...Array(100).keys()].map((k) => 150 + k));
    });

    it("keeps at most maxCharsPerRun characters, but always the newest item even when it alone is larger (and only it)", () => {
      const store = open({ maxCharsPerRun: 100 });
      store.putRun(runRecord("r1", { nextSeq: 12 }));
      store.appendItems(
        "r1",
        items(0, 10, () => "x".repeat(30)),
      );
      expect(seqs(store.allItems("r1"))).toEqual([7, 8, 9]);
      store.appendItems(
        "r1",
        items(10, 1, () => "y".repeat(500)),
      );
      expect(seqs(store.allItems("r1"))).toEqual([10]);
      store.appendItems(
        "r1",
        items(11, 1, () => "z"),
      );
      expect(seqs(store.allItems("r1"))).toEqual([11]);
    });

    it("lastItems gives the newest items, oldest first", () => {
      const store = open();
      store.putRun(runRecord("r1", { nextSeq: 20 }));
      store.appendItems("r1", items(0, 20));
      expect(seqs(store.lastItems("r1", 3))).toEqual([17, 18, 19]);
      expect(seqs(store.lastItems("r1", 50))).toHaveLength(20);
    });

    it("retention is per run: a chatty run does not push out another run's items", () => {
      const store = open({ maxItemsPerRun: 10 });
      store.putRun(runRecord("quiet", { nextSeq: 3 }));
      store.putRun(runRecord("chatty", { nextSeq: 100, createdAtMs: 2 }));
      store.appendItems("quiet", items(0, 3));
      store.appendItems("chatty", items(0, 100));
      expect(seqs(store.allItems("quiet"))).toEqual([0, 1, 2]);
      expect(seqs(store.allItems("chatty"))).toHaveLength(10);
    });

    it("deleteRun forgets the run and its items", () => {
      const store = open();
      store.putRun(runRecord("r1", { nextSeq: 5 }));
      store.appendItems("r1", items(0, 5));
      store.deleteRun("r1");
      expect(store.getRun("r1")).toBeUndefined();
      expect(store.listRuns()).toEqual([]);
      expect(store.allItems("r1")).toEqual([]);
    });

    it("after close(), every read and write throws store_closed naming what was refused; close and flush stay harmless", () => {
      const store = open();
      store.putRun(runRecord("r1", { nextSeq: 1 }));
      store.close();
      store.close();
      store.flush();
      const calls: [string, () => unknown][] = [
        ["store run r2", () => store.putRun(runRecord("r2"), { urgent: true })],
        ["append 1 item(s) to run r1", () => store.appendItems("r1", items(1, 1))],
        ["read run r1", () => store.readItems("r1", { limit: 1 })],
        ["read run r1", () => store.allItems("r1")],
        ["read run r1", () => store.lastItems("r1", 1)],
        ["read run r1", () => store.getRun("r1")],
        ["list runs", () => store.listRuns()],
        ["delete run r1", () => store.deleteRun("r1")],
      ];
      for (const [what, call] of calls) {
        expect(call).toThrow(
          expect.objectContaining({
            name: "ProcessError",
            code: "store_closed",
            message: expect.stringMatching(
              new RegExp(`^Cannot ${what.replace(/[()]/g, "\\$&")}: the .*run store.* is closed`),
            ),
          }),
        );
      }
    });
  });
}
