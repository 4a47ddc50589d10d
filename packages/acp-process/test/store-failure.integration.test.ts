import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRunStore, type RunRecord } from "../src/index.js";
import { SqliteRunStore } from "../src/sqlite.js";
import { useLocalRigs } from "./support.js";

const localRig = useLocalRigs();
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) {
    cleanup();
  }
});

/** A store whose writes fail once a run has finished, as a full disk would. */
class FailingStore extends MemoryRunStore {
  override putRun(record: RunRecord, _options?: { urgent?: boolean }): void {
    if (record.status !== "running" && record.status !== "queued") {
      throw new Error("SQLITE_FULL: database or disk is full");
    }
    super.putRun(record); // MemoryRunStore.putRun takes no options (nothing to flush)
  }
}

describe("a run store that fails", () => {
  it("does not stop a run from finishing: exit notified once, terminal released, the failure in error", async () => {
    const rig = localRig({ store: new FailingStore() });
    const { run, yielded } = await rig.manager.run({
      sessionId: "s",
      command: "echo hi",
      yieldMs: 10_000,
    });
    expect(yielded).toBe(false);
    expect(run.status).toBe("completed");
    expect(run.terminalId).toBeNull();
    expect(run.error).toMatch(
      /the run store failed \(SQLITE_FULL: database or disk is full\).*check the disk/,
    );
    expect(rig.events.filter((e) => e.type === "exit")).toHaveLength(1);
    expect(rig.host.list()).toHaveLength(0);
    await expect(rig.manager.wait(run.id)).resolves.toMatchObject({ status: "completed" });
  });

  it("a SQLite flush that fails from its timer is reported, not thrown, and retried on the next flush", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-process-storefail-"));
    const path = join(dir, "runs.db");
    const errors: Error[] = [];
    let reported!: () => void;
    const failed = new Promise<void>((resolve) => (reported = resolve));
    const store = new SqliteRunStore(path, {
      flushIntervalMs: 5,
      onError: (error) => (errors.push(error), reported()),
    });
    const other = new Database(path);
    cleanups.push(
      () => (other.close(), store.close(), rmSync(dir, { recursive: true, force: true })),
    );
    other.exec(
      "CREATE TRIGGER full BEFORE INSERT ON exec_run_items BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END",
    );
    store.appendItems("r1", [{ seq: 0, kind: "output", text: "one\n", atMs: 1, byteOffset: 0 }]);
    await failed;
    expect(errors[0]!.message).toMatch(
      /writing run output to the SQLite store failed \(database or disk is full\); check the disk/,
    );
    other.exec("DROP TRIGGER full");
    store.flush();
    expect(other.prepare("SELECT text FROM exec_run_items WHERE run_id = 'r1'").all()).toEqual([
      { text: "one\n" },
    ]);
  });
});
