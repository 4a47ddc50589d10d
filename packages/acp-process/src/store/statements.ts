import type Database from "better-sqlite3";
import type { RunItem } from "../model/run-record.js";

/** A row of `exec_run_items` as the item statements read it. */
export interface ItemRow {
  seq: number;
  kind: RunItem["kind"];
  text: string;
  at_ms: number;
  byte_offset: number;
}

type StatementName =
  | "upsertRun"
  | "insertItem"
  | "prune"
  | "readItems"
  | "lastItems"
  | "retained"
  | "firstSeq"
  | "getRun"
  | "listRuns"
  | "deleteRun"
  | "deleteItems";

/** Every statement of the SQLite store, prepared once (see `prepareStatements`). */
export type Statements = Record<StatementName, Database.Statement<unknown[]>>;

export function prepareStatements(db: Database.Database): Statements {
  return {
    upsertRun: db.prepare(
      "INSERT INTO exec_runs (id, session_id, status, created_at_ms, ended_at_ms, record) VALUES (?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT(id) DO UPDATE SET status = excluded.status, ended_at_ms = excluded.ended_at_ms, record = excluded.record",
    ),
    insertItem: db.prepare(
      "INSERT OR REPLACE INTO exec_run_items (run_id, seq, kind, text, at_ms, byte_offset) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    prune: db.prepare("DELETE FROM exec_run_items WHERE run_id = ? AND seq < ?"),
    readItems: db.prepare(
      "SELECT seq, kind, text, at_ms, byte_offset FROM exec_run_items WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
    ),
    lastItems: db.prepare(
      "SELECT seq, kind, text, at_ms, byte_offset FROM exec_run_items WHERE run_id = ? ORDER BY seq DESC LIMIT ?",
    ),
    retained: db.prepare("SELECT seq, text FROM exec_run_items WHERE run_id = ? ORDER BY seq"),
    firstSeq: db.prepare("SELECT MIN(seq) AS seq FROM exec_run_items WHERE run_id = ?"),
    getRun: db.prepare("SELECT record FROM exec_runs WHERE id = ?"),
    listRuns: db.prepare("SELECT id, record FROM exec_runs ORDER BY created_at_ms"),
    deleteRun: db.prepare("DELETE FROM exec_runs WHERE id = ?"),
    deleteItems: db.prepare("DELETE FROM exec_run_items WHERE run_id = ?"),
  };
}

const ITEM_KINDS: readonly unknown[] = ["output", "notice", "event"] satisfies RunItem["kind"][];

/**
 * A stored item, checked: a row changed by something else (a blob for text, an unknown kind) would
 * otherwise reach the tools and fail there as a TypeError. Thrown inside the store's `guard`, so a
 * store_error.
 */
export function toItem(row: ItemRow): RunItem {
  const isNumber = (value: unknown) => typeof value === "number" && Number.isFinite(value);
  const damage =
    typeof row.text !== "string"
      ? "text that is not text"
      : !ITEM_KINDS.includes(row.kind)
        ? `an unknown kind (${JSON.stringify(String(row.kind)).slice(0, 40)})`
        : !isNumber(row.at_ms)
          ? "an at_ms that is not a number"
          : !isNumber(row.byte_offset)
            ? "a byte_offset that is not a number"
            : undefined;
  if (damage !== undefined) {
    throw new Error(
      `item ${row.seq} has ${damage}; delete that item or the run, or move the file aside`,
    );
  }
  return {
    seq: row.seq,
    kind: row.kind,
    text: row.text,
    atMs: row.at_ms,
    byteOffset: row.byte_offset,
  };
}
