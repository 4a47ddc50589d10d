import type Database from "better-sqlite3";
import type { RunItem, RunRecord } from "../model/run-record.js";
import { errnoCodeOf, messageOf, ProcessError } from "../errors.js";
import { StoreLease } from "./lease.js";
import { decodeRecord } from "./record-codec.js";
import { RetentionWindow } from "./retention-window.js";
import { loadSqlite } from "./native-sqlite.js";
import { SCHEMA, verifySchema } from "./schema.js";
import { storeClosed, storeFailure } from "./store-error.js";
import {
  DEFAULT_RETENTION,
  type ItemPage,
  type ItemQuery,
  type RetentionLimits,
  type RunStore,
} from "./types.js";

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
  /**
   * What is checked when the file is opened. `schema` (default): the file is a SQLite database and
   * both tables have acp-process's columns and keys (reads the schema only: well under a
   * millisecond, whatever the size). `quick_check`: also `PRAGMA quick_check`, which reads every
   * page (linear in the file's size; see the README for measured costs). Records are always
   * checked when read.
   */
  openCheck?: "schema" | "quick_check";
}

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
 * crashes; an OS crash may lose the last transactions). Every failure of the file is a
 * `store_error` naming the file and the run; every call after `close()` throws `store_closed`.
 */
export class SqliteRunStore implements RunStore {
  readonly kind = "sqlite";
  readonly retention: RetentionLimits;
  /** `<file>.output`: spilled output lives beside the file, so a restart reads it (none for `:memory:`). */
  readonly outputDirectory: string | undefined;
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

  constructor(
    readonly path: string,
    options: SqliteStoreOptions = {},
  ) {
    this.retention = { ...DEFAULT_RETENTION, ...options.retention };
    this.outputDirectory = path === ":memory:" || path === "" ? undefined : `${path}.output`;
    this.flushItems = options.flushItems ?? 2000;
    this.onError =
      options.onError ?? ((error) => process.stderr.write(`acp-process: ${error.message}\n`));
    this.db = openDatabase(path, options.openCheck ?? "schema");
    this.lease = new StoreLease(this.db, path);
    if (options.exclusive !== false) {
      try {
        this.lease.acquire();
      } catch (error) {
        this.db.close();
        throw storeFailure(path, "taking the lease", null, error);
      }
    }
    this.statements = this.prepareStatements(options.exclusive !== false);
    this.flushInterval = options.flushIntervalMs ?? 50;
  }

  /** The statements this store runs; a failure releases what the constructor took. */
  private prepareStatements(leased: boolean) {
    try {
      return prepareAll(this.db);
    } catch (error) {
      try {
        if (leased) {
          this.lease.release();
        }
      } finally {
        this.db.close();
      }
      throw storeFailure(this.path, "preparing its statements", null, error);
    }
  }

  putRun(record: RunRecord, options: { urgent?: boolean } = {}): void {
    this.assertOpen(`store run ${record.id}`);
    this.pendingRuns.set(record.id, { ...record });
    if (options.urgent) {
      this.flush();
    } else {
      this.scheduleFlush();
    }
  }

  appendItems(runId: string, items: readonly RunItem[]): void {
    this.assertOpen(`append ${items.length} item(s) to run ${runId}`);
    const window = this.windowOf(runId);
    for (const item of items) {
      this.pendingItems.push({ runId, item });
      this.pruneFloor.set(runId, window.add(item.seq, item.text.length));
    }
    if (this.pendingItems.length >= this.flushItems) {
      this.flush();
    } else {
      this.scheduleFlush();
    }
  }

  readItems(runId: string, query: ItemQuery): ItemPage {
    this.assertOpen(`read run ${runId}`);
    this.flush();
    return this.guard("reading items", runId, () => {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
      const first = (this.statements.firstSeq.get(runId) as { seq: number | null }).seq;
      const firstSeq = first ?? this.getRun(runId)?.nextSeq ?? 0;
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
      const rows = this.statements.readItems.all(
        runId,
        Math.max(query.sinceSeq ?? firstSeq, firstSeq),
        Math.max(0, query.limit),
      ) as ItemRow[];
      return { items: rows.map(toItem), firstSeq };
    });
  }

  allItems(runId: string): RunItem[] {
    return this.readItems(runId, { limit: this.retention.maxItemsPerRun }).items;
  }

  lastItems(runId: string, limit: number): RunItem[] {
    this.assertOpen(`read run ${runId}`);
    this.flush();
    return this.guard("reading items", runId, () =>
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
      (this.statements.lastItems.all(runId, Math.max(0, limit)) as ItemRow[]).map(toItem).reverse(),
    );
  }

  getRun(runId: string): RunRecord | undefined {
    this.assertOpen(`read run ${runId}`);
    this.flush();
    const row = this.guard(
      "reading the run record",
      runId,
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
      () => this.statements.getRun.get(runId) as { record: string } | undefined,
    );
    return row ? decodeRecord(row.record, this.path, runId) : undefined;
  }

  listRuns(): RunRecord[] {
    this.assertOpen("list runs");
    this.flush();
    const rows = this.guard(
      "listing runs",
      null,
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
      () => this.statements.listRuns.all() as { id: string; record: string }[],
    );
    return rows.map((row) => decodeRecord(row.record, this.path, row.id));
  }

  deleteRun(runId: string): void {
    this.assertOpen(`delete run ${runId}`);
    this.flush();
    this.guard("deleting the run", runId, () => {
      this.statements.deleteRun.run(runId);
      this.statements.deleteItems.run(runId);
    });
    this.windows.delete(runId);
    this.pruneFloor.delete(runId);
  }

  /** Writes every pending item and run in one transaction, then applies retention. After `close()`: nothing is pending, nothing to do. */
  flush(): void {
    if (this.closed) {
      return;
    }
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pendingItems.length === 0 && this.pendingRuns.size === 0) {
      return;
    }
    // Items the same transaction would prune are not written at all (a flood of output would
    // otherwise pass through the file). The write is synchronous: the batch is dropped only once
    // it is written, and a failed write leaves it pending for the next flush to retry.
    this.dropPendingBeyondRetention();
    this.write(this.pendingItems, [...this.pendingRuns.values()]);
    this.pendingItems.length = 0;
    this.pendingRuns.clear();
  }

  private write(
    items: readonly { runId: string; item: RunItem }[],
    runs: readonly RunRecord[],
  ): void {
    const { insertItem, upsertRun, prune } = this.statements;
    // Each statement names its run when it fails; the transaction rolls the whole batch back.
    this.db.transaction(() => {
      const touched = new Set<string>();
      for (const { runId, item } of items) {
        this.guard("writing an item", runId, () =>
          insertItem.run(runId, item.seq, item.kind, item.text, item.atMs, item.byteOffset),
        );
        touched.add(runId);
      }
      for (const r of runs) {
        this.guard("writing the run record", r.id, () =>
          upsertRun.run(r.id, r.sessionId, r.status, r.createdAtMs, r.endedAtMs, JSON.stringify(r)),
        );
      }
      for (const runId of touched) {
        this.guard("pruning items beyond retention", runId, () =>
          prune.run(runId, this.pruneFloor.get(runId) ?? 0),
        );
      }
    })();
  }

  /**
   * Items below their run's prune floor would be deleted by the same transaction that writes
   * them, so dropping them first changes nothing stored; it also bounds what waits while writes
   * fail (disk full) to the retention limits of each run.
   */
  private dropPendingBeyondRetention(): void {
    let kept = 0;
    for (const pending of this.pendingItems) {
      if (pending.item.seq >= (this.pruneFloor.get(pending.runId) ?? 0)) {
        this.pendingItems[kept++] = pending;
      }
    }
    this.pendingItems.length = kept;
  }

  /** Size figures, for benchmarks and status: the file's pages, and those holding live data. */
  stats(): { bytes: number; liveBytes: number } {
    this.assertOpen("read the store's size");
    this.flush();
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
    const pageCount = this.db.pragma("page_count", { simple: true }) as number;
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
    const freePages = this.db.pragma("freelist_count", { simple: true }) as number;
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
    const pageSize = this.db.pragma("page_size", { simple: true }) as number;
    return { bytes: pageCount * pageSize, liveBytes: (pageCount - freePages) * pageSize };
  }

  /** Flushes, gives the lease back and closes the file. Idempotent; every later call but flush/close throws `store_closed`. */
  close(): void {
    if (this.closed) {
      return;
    }
    try {
      this.flush();
      this.lease.release();
    } finally {
      this.closed = true;
      if (this.timer) {
        clearTimeout(this.timer);
      }
      this.db.close();
    }
  }

  /**
   * The retention window of a run, rebuilt from the rows already in the file the first time the
   * run is appended to by this instance: a reopened store's first append (the recovery notice, a
   * claimed run's output) must prune only what retention allows, not everything written before.
   * Bounded by the retention limits (the file never holds more for one run).
   */
  private windowOf(runId: string): RetentionWindow {
    let window = this.windows.get(runId);
    if (window) {
      return window;
    }
    window = new RetentionWindow(this.retention.maxItemsPerRun, this.retention.maxCharsPerRun);
    const rows = this.guard(
      "reading retained items",
      runId,
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
      () => this.statements.retained.all(runId) as { seq: number; text: string }[],
    );
    for (const row of rows) {
      this.pruneFloor.set(runId, window.add(row.seq, row.text.length));
    }
    this.windows.set(runId, window);
    return window;
  }

  private guard<T>(doing: string, runId: string | null, operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      throw storeFailure(this.path, doing, runId, error);
    }
  }

  private assertOpen(what: string): void {
    if (this.closed) {
      throw storeClosed(`the run store ${this.path}`, what);
    }
  }

  private scheduleFlush(): void {
    if (this.timer || this.closed) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      try {
        this.flush();
      } catch (error) {
        // From a timer nobody awaits: report it instead of crashing the agent; retried on the next write.
        const root =
          error instanceof ProcessError && error.cause !== undefined ? error.cause : error;
        this.onError(
          new ProcessError(
            "store_error",
            `writing run output to the SQLite store failed (${messageOf(root)}); check the disk and the database file. ${messageOf(error)}`,
            { cause: error },
          ),
        );
      }
    }, this.flushInterval);
    this.timer.unref();
  }
}

/** Opens the file in WAL mode, creates missing tables and runs the open-time check. */
function openDatabase(path: string, check: "schema" | "quick_check"): Database.Database {
  const open = loadSqlite();
  let db: Database.Database | undefined;
  try {
    db = new open(path);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(SCHEMA);
    verifySchema(db, path);
    if (check === "quick_check") {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
      const problems = (db.pragma("quick_check(5)") as { quick_check: string }[]).map(
        (row) => row.quick_check,
      );
      if (problems.join() !== "ok") {
        throw new ProcessError(
          "store_error",
          `The run store ${path} failed PRAGMA quick_check: ${problems.join("; ")}. Move the file aside and start with a new one (or try the sqlite3 .recover command on a copy)`,
        );
      }
    }
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof ProcessError) {
      throw error;
    }
    const code = errnoCodeOf(error);
    const hint =
      code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT"
        ? "the file is not a SQLite database or is damaged: move it aside and start with a new one"
        : "check that the directory exists and is writable";
    throw new ProcessError(
      "store_error",
      `Could not open the run store ${path} (${messageOf(error)}${typeof code === "string" ? ` [${code}]` : ""}): ${hint}`,
      { cause: error },
    );
  }
}

/** Every statement of the store, prepared once. */
function prepareAll(db: Database.Database) {
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
 * otherwise reach the tools and fail there as a TypeError. Thrown inside `guard`, so a store_error.
 */
function toItem(row: ItemRow): RunItem {
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
