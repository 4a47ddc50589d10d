import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../src/sqlite.js";
import { localRig } from "./support.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-process-lease-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "runs.db");
}

function open(path: string): SqliteRunStore {
  const store = new SqliteRunStore(path);
  cleanups.push(() => store.close());
  return store;
}

describe("one SQLite run store file, one owner", () => {
  it("a second store on the same file is refused while the first is open, naming the file and the holder", () => {
    const path = tempDb();
    const first = open(path);
    expect(() => new SqliteRunStore(path)).toThrow(
      expect.objectContaining({
        code: "store_in_use",
        message: expect.stringContaining(
          `The run store ${path} is in use by process ${process.pid}`,
        ),
      }),
    );
    first.close();
    expect(() => open(path)).not.toThrow();
  });

  it("a lease left by a process that is gone (a crash) is taken over", () => {
    const path = tempDb();
    open(path).close();
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    const db = new Database(path);
    db.prepare(
      "INSERT OR REPLACE INTO exec_lease (id, owner, pid, host, acquired_at_ms) VALUES (1, 'crashed', ?, ?, 0)",
    ).run(Number(gone.stdout), hostname());
    db.close();
    expect(() => open(path)).not.toThrow();
  });

  it("a file that cannot be opened is a store_error with the path and what to check", () => {
    expect(() => new SqliteRunStore("/nonexistent-dir/runs.db")).toThrow(
      expect.objectContaining({
        code: "store_error",
        message: expect.stringMatching(
          /Could not open the run store \/nonexistent-dir\/runs.db .*check that the directory exists and is writable/,
        ),
      }),
    );
  });

  it("recover() leaves runs that this manager is running alone", async () => {
    const store = new SqliteRunStore(tempDb());
    const rig = localRig({ store });
    cleanups.push(async () => (await rig.dispose(), store.close()));
    const live = await rig.manager.start({ sessionId: "s", command: "sleep 30" });
    const report = await rig.manager.recover();
    expect(report.lost).toEqual([]);
    expect(rig.manager.get(live.id).status).toBe("running");
    expect(rig.events.filter((e) => e.type === "exit")).toHaveLength(0);
  });
});
