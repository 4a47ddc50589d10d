import type Database from "better-sqlite3";
import { ProcessError } from "../base/errors.js";

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS exec_runs (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  ended_at_ms INTEGER,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS exec_runs_status ON exec_runs (status);
CREATE TABLE IF NOT EXISTS exec_run_items (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  byte_offset INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
`;

/** Columns each table must have, in order, and their position in the primary key (0 = not in it). */
const EXPECTED: Record<string, readonly [name: string, pk: number][]> = {
  exec_runs: [
    ["id", 1],
    ["session_id", 0],
    ["status", 0],
    ["created_at_ms", 0],
    ["ended_at_ms", 0],
    ["record", 0],
  ],
  exec_run_items: [
    ["run_id", 1],
    ["seq", 2],
    ["kind", 0],
    ["text", 0],
    ["at_ms", 0],
    ["byte_offset", 0],
  ],
};

/**
 * The open-time check: `CREATE TABLE IF NOT EXISTS` keeps a table someone replaced, and every
 * statement on it would then fail (or, without the primary key, duplicate items) with a raw
 * SQLite error. Reads the two tables' column lists from the schema (no table data is read: the
 * cost does not grow with the file). Throws `store_error` naming the file and the table.
 */
export function verifySchema(db: Database.Database, path: string): void {
  for (const [table, columns] of Object.entries(EXPECTED)) {
    // table_info's columns are documented by SQLite; the table name is one of EXPECTED's keys.
    const found = db
      .prepare<[], { name: string; pk: number }>(`PRAGMA table_info(${table})`)
      .all()
      .map((c) => [c.name, c.pk] as const);
    const expected = columns.map(([name, pk]) => `${name}${pk ? ` (key ${pk})` : ""}`).join(", ");
    const actual = found.map(([name, pk]) => `${name}${pk ? ` (key ${pk})` : ""}`).join(", ");
    if (expected !== actual) {
      throw new ProcessError(
        "store_error",
        `The run store ${path} has a table ${table} that is not acp-process's: expected columns ${expected}, found ${actual || "none"}. ` +
          "Use a new file for the run store, or move this one aside (acp-process creates the tables in an empty file)",
      );
    }
  }
}
