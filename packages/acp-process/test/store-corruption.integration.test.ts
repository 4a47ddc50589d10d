import { closeSync, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type RunItem } from "../src/index.js";
import { SqliteRunStore } from "../src/sqlite.js";
import { runRecord, tempDb } from "./store-support.js";
import { localRig } from "./support.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

/** A file holding run `r1`, left `running` with 20 items, as a crashed agent leaves it. */
function seeded(path: string): RunItem[] {
  const items = Array.from({ length: 20 }, (_, seq): RunItem => ({
    seq,
    kind: "output",
    text: `line ${seq}\n`,
    atMs: seq,
    byteOffset: seq * 7,
  }));
  const store = new SqliteRunStore(path);
  store.putRun(runRecord("r1", { nextSeq: 20, outputBytes: 140 }));
  store.appendItems("r1", items);
  store.close();
  return items;
}

/** Another connection to the file, as a person with the sqlite3 shell would open it. */
function tamper(path: string, sql: string): void {
  const db = new Database(path);
  db.exec(sql);
  db.close();
}

function open(path: string): SqliteRunStore {
  const store = new SqliteRunStore(path);
  cleanups.push(() => store.close());
  return store;
}

function managerOn(store: SqliteRunStore): ReturnType<typeof localRig> {
  const rig = localRig({ store });
  cleanups.push(() => rig.dispose());
  return rig;
}

const storeError = (...parts: string[]) =>
  expect.objectContaining({
    name: "ProcessError",
    code: "store_error",
    message: expect.stringMatching(
      new RegExp(parts.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join(".*")),
    ),
  });

describe("a damaged SQLite run store gives store_error naming the file and the run", () => {
  it("a run record that is not JSON: reads and recover() throw store_error naming the file and the run, not SyntaxError", async () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    seeded(path);
    tamper(path, "UPDATE exec_runs SET record = '{\"id\": \"r1\", truncated' WHERE id = 'r1'");
    const store = open(path);
    const { manager } = managerOn(store);
    expect(() => store.getRun("r1")).toThrow(storeError(path, "run r1", "is not JSON"));
    expect(() => manager.get("r1")).toThrow(storeError(path, "run r1", "is not JSON"));
    expect(() => manager.list()).toThrow(storeError(path, "run r1", "is not JSON"));
    await expect(manager.recover()).rejects.toThrow(storeError(path, "run r1", "is not JSON"));
  });

  it.each([
    ["text that is a blob", "UPDATE exec_run_items SET text = X'DEADBEEF' WHERE seq = 3", "item 3"],
    ["an unknown kind", "UPDATE exec_run_items SET kind = 'weird' WHERE seq = 4", "item 4"],
    ["an at_ms that is text", "UPDATE exec_run_items SET at_ms = 'x' WHERE seq = 5", "item 5"],
    [
      "a byte_offset that is text",
      "UPDATE exec_run_items SET byte_offset = 'y' WHERE seq = 6",
      "item 6",
    ],
  ])(
    "an item with %s: reads throw store_error naming the file, the run and the item, never hand it on",
    (_, sql, item) => {
      const path = tempDb(cleanups, "acp-process-corrupt-");
      seeded(path);
      tamper(path, sql);
      const store = open(path);
      expect(() => store.readItems("r1", { limit: 100 })).toThrow(storeError(path, "run r1", item));
      expect(() => store.lastItems("r1", 100)).toThrow(storeError(path, "run r1", item));
    },
  );

  it("a run record that is JSON but not a run (no status, another id) is a store_error too", () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    seeded(path);
    tamper(
      path,
      'UPDATE exec_runs SET record = \'{"id": "r1", "sessionId": "s"}\' WHERE id = \'r1\'',
    );
    expect(() => open(path).getRun("r1")).toThrow(storeError(path, "run r1", "unknown status"));
    const other = tempDb(cleanups, "acp-process-corrupt-");
    seeded(other);
    tamper(
      other,
      `UPDATE exec_runs SET record = '${JSON.stringify(runRecord("r2"))}' WHERE id = 'r1'`,
    );
    expect(() => open(other).listRuns()).toThrow(
      storeError(other, "run r1", 'names another id ("r2")'),
    );
  });

  it("a replaced items table is refused at open, naming the file, the table and the columns expected", () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    seeded(path);
    tamper(
      path,
      "DROP TABLE exec_run_items; CREATE TABLE exec_run_items (run_id TEXT, seq INTEGER, body BLOB)",
    );
    expect(() => new SqliteRunStore(path)).toThrow(
      storeError(
        path,
        "table exec_run_items",
        "expected columns run_id (key 1), seq (key 2)",
        "found run_id, seq, body",
      ),
    );
    // The refused open leaves the file as it was: no lease taken, nothing created.
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT COUNT(*) AS n FROM exec_lease").get()).toEqual({ n: 0 });
    db.close();
  });

  it("a replaced runs table with the same columns but no primary key is refused at open", () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    seeded(path);
    tamper(
      path,
      "ALTER TABLE exec_runs RENAME TO old_runs; CREATE TABLE exec_runs (id TEXT, session_id TEXT, status TEXT, created_at_ms INTEGER, ended_at_ms INTEGER, record TEXT)",
    );
    expect(() => new SqliteRunStore(path)).toThrow(
      storeError(path, "table exec_runs", "expected columns id (key 1)", "found id, session_id"),
    );
  });

  it("a table replaced while the store is open: the next read is a store_error naming the file and the run", () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    seeded(path);
    const store = open(path);
    const other = new Database(path);
    cleanups.push(() => void other.close());
    other.exec("DROP TABLE exec_run_items; CREATE TABLE exec_run_items (x TEXT)");
    expect(() => store.readItems("r1", { limit: 10 })).toThrow(
      storeError(path, "reading items for run r1", "no such column"),
    );
  });

  it("a constraint failure during recover() is a store_error naming the file and the run, and no stored item is deleted", async () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    const items = seeded(path);
    // Same columns and keys as acp-process's table (so the open-time check passes), plus a CHECK the recovery notice breaks.
    tamper(
      path,
      "CREATE TABLE strict_items (run_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind = 'output'), text TEXT NOT NULL, " +
        "at_ms INTEGER NOT NULL, byte_offset INTEGER NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID; " +
        "INSERT INTO strict_items SELECT * FROM exec_run_items; DROP TABLE exec_run_items; ALTER TABLE strict_items RENAME TO exec_run_items",
    );
    const store = open(path);
    const { manager } = managerOn(store);
    await expect(manager.recover()).rejects.toThrow(
      storeError(
        path,
        "writing an item for run r1",
        "CHECK constraint failed",
        "SQLITE_CONSTRAINT_CHECK",
      ),
    );
    const db = new Database(path, { readonly: true });
    cleanups.push(() => void db.close());
    const stored = db
      .prepare(
        "SELECT seq, kind, text, at_ms AS atMs, byte_offset AS byteOffset FROM exec_run_items WHERE run_id = 'r1' ORDER BY seq",
      )
      .all();
    expect(stored).toEqual(items);
    expect(db.prepare("SELECT status FROM exec_runs WHERE id = 'r1'").get()).toEqual({
      status: "running",
    });
    // The refused write stays pending (retried by every flush), so closing says it could not be written.
    expect(() => store.close()).toThrow(storeError(path, "writing an item for run r1"));
  });

  it("a file that is not a SQLite database is a store_error saying so, at open", () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    writeFileSync(path, "this is not a database\n".repeat(200));
    expect(() => new SqliteRunStore(path)).toThrow(
      storeError(
        `Could not open the run store ${path}`,
        "SQLITE_NOTADB",
        "not a SQLite database or is damaged",
      ),
    );
  });

  it("openCheck quick_check runs PRAGMA quick_check at open: a healthy file opens", () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    seeded(path);
    const store = new SqliteRunStore(path, { openCheck: "quick_check" });
    cleanups.push(() => store.close());
    expect(store.allItems("r1")).toHaveLength(20);
  });

  it("a damaged page: the default open does not see it and the read that meets it is a store_error naming the run; quick_check refuses the file at open", () => {
    const path = tempDb(cleanups, "acp-process-corrupt-");
    const seed = new SqliteRunStore(path);
    for (let r = 0; r < 20; r++) {
      seed.putRun(runRecord(`run_${r}`, { status: "completed", createdAtMs: r, nextSeq: 100 }));
      seed.appendItems(
        `run_${r}`,
        Array.from({ length: 100 }, (_, seq): RunItem => ({
          seq,
          kind: "output",
          text: `line ${seq}\n`,
          atMs: 1,
          byteOffset: 0,
        })),
      );
    }
    seed.close();
    // Scribble over a page in the middle of the file (item rows), as a bad disk block would.
    const pages = statSync(path).size / 4096;
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(4096, 0x41), 0, 4096, 4096 * Math.floor(pages / 2));
    closeSync(fd);

    const store = open(path);
    const failures: unknown[] = [];
    for (let r = 0; r < 20; r++) {
      try {
        store.allItems(`run_${r}`);
      } catch (error) {
        failures.push(error);
      }
    }
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toEqual(
        storeError(
          path,
          "reading items for run run_",
          "database disk image is malformed",
          "SQLITE_CORRUPT",
        ),
      );
    }
    store.close();
    expect(() => new SqliteRunStore(path, { openCheck: "quick_check" })).toThrow(
      storeError(path, "SQLITE_CORRUPT"),
    );
  });
});
