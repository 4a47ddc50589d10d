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

/**
 * Every statement of the SQLite store, prepared once (see `prepareStatements`), each typed with its
 * parameters and the row its columns make (schema.ts). A row read back is still checked where
 * something else may have written the file (`toItem`, `decodeRecord`).
 */
export interface Statements {
  upsertRun: Database.Statement<
    [
      id: string,
      sessionId: string,
      status: string,
      createdAtMs: number,
      endedAtMs: number | null,
      record: string,
    ]
  >;
  insertItem: Database.Statement<
    [runId: string, seq: number, kind: string, text: string, atMs: number, byteOffset: number]
  >;
  prune: Database.Statement<[runId: string, belowSeq: number]>;
  readItems: Database.Statement<[runId: string, fromSeq: number, limit: number], ItemRow>;
  lastItems: Database.Statement<[runId: string, limit: number], ItemRow>;
  retained: Database.Statement<[runId: string], { seq: number; text: string }>;
  firstSeq: Database.Statement<[runId: string], { seq: number | null }>;
  getRun: Database.Statement<[id: string], { record: string }>;
  listRuns: Database.Statement<[], { id: string; record: string }>;
  deleteRun: Database.Statement<[id: string]>;
  deleteItems: Database.Statement<[runId: string]>;
}

/** Prepares `name`'s SQL with the parameter and row types `Statements` gives it. */
type Prepared<Name extends keyof Statements> =
  Statements[Name] extends Database.Statement<infer Params, infer Row> ? [Params, Row] : never;

export function prepareStatements(db: Database.Database): Statements {
  const prepare = <Name extends keyof Statements>(_name: Name, sql: string) =>
    db.prepare<Prepared<Name>[0], Prepared<Name>[1]>(sql);
  return {
    upsertRun: prepare(
      "upsertRun",
      "INSERT INTO exec_runs (id, session_id, status, created_at_ms, ended_at_ms, record) VALUES (?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT(id) DO UPDATE SET status = excluded.status, ended_at_ms = excluded.ended_at_ms, record = excluded.record",
    ),
    insertItem: prepare(
      "insertItem",
      "INSERT OR REPLACE INTO exec_run_items (run_id, seq, kind, text, at_ms, byte_offset) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    prune: prepare("prune", "DELETE FROM exec_run_items WHERE run_id = ? AND seq < ?"),
    readItems: prepare(
      "readItems",
      "SELECT seq, kind, text, at_ms, byte_offset FROM exec_run_items WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
    ),
    lastItems: prepare(
      "lastItems",
      "SELECT seq, kind, text, at_ms, byte_offset FROM exec_run_items WHERE run_id = ? ORDER BY seq DESC LIMIT ?",
    ),
    retained: prepare(
      "retained",
      "SELECT seq, text FROM exec_run_items WHERE run_id = ? ORDER BY seq",
    ),
    firstSeq: prepare("firstSeq", "SELECT MIN(seq) AS seq FROM exec_run_items WHERE run_id = ?"),
    getRun: prepare("getRun", "SELECT record FROM exec_runs WHERE id = ?"),
    listRuns: prepare("listRuns", "SELECT id, record FROM exec_runs ORDER BY created_at_ms"),
    deleteRun: prepare("deleteRun", "DELETE FROM exec_runs WHERE id = ?"),
    deleteItems: prepare("deleteItems", "DELETE FROM exec_run_items WHERE run_id = ?"),
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
