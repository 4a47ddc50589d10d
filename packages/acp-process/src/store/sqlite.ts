import Database from "better-sqlite3";
import type { RunItem, RunRecord } from "../runs/types.js";
import { messageOf, ProcessError } from "../errors.js";
import { StoreLease } from "./lease.js";
import { RetentionWindow } from "./retention-window.js";
import { DEFAULT_RETENTION, type ItemPage, type ItemQuery, type RetentionLimits, type RunStore } from "./types.js";

export interface SqliteStoreOptions {
  retention?: Partial<RetentionLimits>;
  /** Appends are written at least this often. Default 50. */
  flushIntervalMs?: number;
  /** Appends are written once this many items are pending. Default 2000. */
  flushItems?: number;
  /**
   * Called when a batched write from the flush timer fails (disk full, file removed); the batch is
   * kept and retried on the next flush. Default: one line on stderr.
   */
  onError?: (error: Error) => void;
  /**
   * Default true: the file is leased to this instance (see `StoreLease`); opening it while another
   * live process or an unclosed instance holds it throws `store_in_use`. False: no lease (tools that
   * only read the file while the agent runs).
   */
  exclusive?: boolean;
}

const SCHEMA = `
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

interface ItemRow {
  seq: number;
  kind: RunItem["kind"];
  text: string;
  at_ms: number;
  byte_offset: number;
}

/**
 * Runs and items in SQLite (WAL). Appends are batched: one transaction per `flushIntervalMs` or
 * `flushItems`, not per chunk. Every read flushes first, so an item a reader has seen is committed;
 * WAL commits survive the agent being killed (synchronous=NORMAL is durable against process
 * crashes; an OS crash may lose the last transactions).
 */
export class SqliteRunStore implements RunStore {
  readonly kind = "sqlite";
  readonly retention: RetentionLimits;
  private readonly db: Database.Database;
  private readonly pendingItems: { runId: string; item: RunItem }[] = [];
  private readonly pendingRuns = new Map<string, RunRecord>();
  private readonly windows = new Map<string, RetentionWindow>();
  private readonly pruneFloor = new Map<string, number>();
  private readonly flushItems: number;
  private readonly flushInterval: number;
  private timer: NodeJS.Timeout | null = null;
  private readonly lease: StoreLease;
  private readonly onError: (error: Error) => void;
  private readonly statements;
  private closed = false;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.retention = { ...DEFAULT_RETENTION, ...options.retention };
    this.flushItems = options.flushItems ?? 2000;
    this.onError = options.onError ?? ((error) => process.stderr.write(`acp-process: ${error.message}\n`));
    try {
      this.db = new Database(path);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.exec(SCHEMA);
    } catch (error) {
      throw new ProcessError("store_error", `Could not open the run store ${path} (${messageOf(error)}): check that the directory exists and is writable`, { cause: error });
    }
    this.lease = new StoreLease(this.db, path);
    if (options.exclusive !== false) {
      try {
        this.lease.acquire();
      } catch (error) {
        this.db.close();
        throw error;
      }
    }
    this.statements = {
      upsertRun: this.db.prepare(
        "INSERT INTO exec_runs (id, session_id, status, created_at_ms, ended_at_ms, record) VALUES (?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT(id) DO UPDATE SET status = excluded.status, ended_at_ms = excluded.ended_at_ms, record = excluded.record",
      ),
      insertItem: this.db.prepare("INSERT OR REPLACE INTO exec_run_items (run_id, seq, kind, text, at_ms, byte_offset) VALUES (?, ?, ?, ?, ?, ?)"),
      prune: this.db.prepare("DELETE FROM exec_run_items WHERE run_id = ? AND seq < ?"),
      readItems: this.db.prepare("SELECT seq, kind, text, at_ms, byte_offset FROM exec_run_items WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?"),
      lastItems: this.db.prepare("SELECT seq, kind, text, at_ms, byte_offset FROM exec_run_items WHERE run_id = ? ORDER BY seq DESC LIMIT ?"),
      firstSeq: this.db.prepare("SELECT MIN(seq) AS seq FROM exec_run_items WHERE run_id = ?"),
      getRun: this.db.prepare("SELECT record FROM exec_runs WHERE id = ?"),
      listRuns: this.db.prepare("SELECT record FROM exec_runs ORDER BY created_at_ms"),
      deleteRun: this.db.prepare("DELETE FROM exec_runs WHERE id = ?"),
      deleteItems: this.db.prepare("DELETE FROM exec_run_items WHERE run_id = ?"),
    };
    this.flushInterval = options.flushIntervalMs ?? 50;
  }

  putRun(record: RunRecord, options: { urgent?: boolean } = {}): void {
    this.pendingRuns.set(record.id, { ...record });
    if (options.urgent) this.flush();
    else this.scheduleFlush();
  }

  appendItems(runId: string, items: readonly RunItem[]): void {
    let window = this.windows.get(runId);
    if (!window) this.windows.set(runId, (window = new RetentionWindow(this.retention.maxItemsPerRun, this.retention.maxCharsPerRun)));
    for (const item of items) {
      this.pendingItems.push({ runId, item });
      this.pruneFloor.set(runId, window.add(item.seq, item.text.length));
    }
    if (this.pendingItems.length >= this.flushItems) this.flush();
    else this.scheduleFlush();
  }

  readItems(runId: string, query: ItemQuery): ItemPage {
    this.flush();
    const first = (this.statements.firstSeq.get(runId) as { seq: number | null }).seq;
    const firstSeq = first ?? this.getRun(runId)?.nextSeq ?? 0;
    const rows = this.statements.readItems.all(runId, Math.max(query.sinceSeq ?? firstSeq, firstSeq), Math.max(0, query.limit)) as ItemRow[];
    return { items: rows.map(toItem), firstSeq };
  }

  allItems(runId: string): RunItem[] {
    return this.readItems(runId, { limit: this.retention.maxItemsPerRun }).items;
  }

  lastItems(runId: string, limit: number): RunItem[] {
    this.flush();
    return (this.statements.lastItems.all(runId, Math.max(0, limit)) as ItemRow[]).map(toItem).reverse();
  }

  getRun(runId: string): RunRecord | undefined {
    this.flush();
    const row = this.statements.getRun.get(runId) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as RunRecord) : undefined;
  }

  listRuns(): RunRecord[] {
    this.flush();
    return (this.statements.listRuns.all() as { record: string }[]).map((row) => JSON.parse(row.record) as RunRecord);
  }

  deleteRun(runId: string): void {
    this.flush();
    this.statements.deleteRun.run(runId);
    this.statements.deleteItems.run(runId);
    this.windows.delete(runId);
    this.pruneFloor.delete(runId);
  }

  /** Writes every pending item and run in one transaction, then applies retention. */
  flush(): void {
    if (this.closed) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pendingItems.length === 0 && this.pendingRuns.size === 0) return;
    // The write is synchronous: the batch is dropped only once it is written, and a failed write
    // leaves it pending for the next flush to retry.
    this.write(this.pendingItems, [...this.pendingRuns.values()]);
    this.pendingItems.length = 0;
    this.pendingRuns.clear();
  }

  private write(items: readonly { runId: string; item: RunItem }[], runs: readonly RunRecord[]): void {
    const { insertItem, upsertRun, prune } = this.statements;
    this.db.transaction(() => {
      const touched = new Set<string>();
      for (const { runId, item } of items) {
        insertItem.run(runId, item.seq, item.kind, item.text, item.atMs, item.byteOffset);
        touched.add(runId);
      }
      for (const r of runs) upsertRun.run(r.id, r.sessionId, r.status, r.createdAtMs, r.endedAtMs, JSON.stringify(r));
      for (const runId of touched) prune.run(runId, this.pruneFloor.get(runId) ?? 0);
    })();
  }

  /** Size figures, for benchmarks and status: the file's pages, and those holding live data. */
  stats(): { bytes: number; liveBytes: number } {
    this.flush();
    const pageCount = this.db.pragma("page_count", { simple: true }) as number;
    const freePages = this.db.pragma("freelist_count", { simple: true }) as number;
    const pageSize = this.db.pragma("page_size", { simple: true }) as number;
    return { bytes: pageCount * pageSize, liveBytes: (pageCount - freePages) * pageSize };
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flush();
      this.lease.release();
    } finally {
      this.closed = true;
      this.db.close();
    }
  }

  private scheduleFlush(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      try {
        this.flush();
      } catch (error) {
        // From a timer nobody awaits: report it instead of crashing the agent; retried on the next write.
        this.onError(new Error(`writing run output to the SQLite store failed (${messageOf(error)}); check the disk and the database file`, { cause: error }));
      }
    }, this.flushInterval);
    this.timer.unref();
  }
}

function toItem(row: ItemRow): RunItem {
  return { seq: row.seq, kind: row.kind, text: row.text, atMs: row.at_ms, byteOffset: row.byte_offset };
}
