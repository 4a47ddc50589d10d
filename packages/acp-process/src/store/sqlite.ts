import type Database from "better-sqlite3";
import type { RunItem, RunRecord } from "../model/run-record.js";
import { StoreLease } from "./lease.js";
import { PendingBatch, type PendingItem } from "./pending-batch.js";
import { decodeRecord } from "./record-codec.js";
import { databaseSize, openDatabase } from "./sqlite-file.js";
import { prepareStatements, toItem, type Statements } from "./statements.js";
import { flushFailure, storeClosed, storeFailure } from "./store-error.js";
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
  private readonly pending: PendingBatch;
  private readonly flushItems: number;
  private readonly flushInterval: number;
  private timer: NodeJS.Timeout | null = null;
  private readonly lease: StoreLease;
  private readonly onError: (error: Error) => void;
  private readonly statements: Statements;
  private closed = false;

  constructor(
    readonly path: string,
    options: SqliteStoreOptions = {},
  ) {
    this.retention = { ...DEFAULT_RETENTION, ...options.retention };
    this.outputDirectory = path === ":memory:" || path === "" ? undefined : `${path}.output`;
    this.flushItems = options.flushItems ?? 2000;
    this.pending = new PendingBatch(this.retention, (runId) =>
      this.guard("reading retained items", runId, () => this.statements.retained.all(runId)),
    );
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
  private prepareStatements(leased: boolean): Statements {
    try {
      return prepareStatements(this.db);
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
    this.pending.runs.set(record.id, { ...record });
    if (options.urgent) {
      this.flush();
    } else {
      this.scheduleFlush();
    }
  }

  appendItems(runId: string, items: readonly RunItem[]): void {
    this.assertOpen(`append ${items.length} item(s) to run ${runId}`);
    this.pending.addItems(runId, items);
    if (this.pending.items.length >= this.flushItems) {
      this.flush();
    } else {
      this.scheduleFlush();
    }
  }

  readItems(runId: string, query: ItemQuery): ItemPage {
    this.assertOpen(`read run ${runId}`);
    this.flush();
    return this.guard("reading items", runId, () => {
      const first = this.statements.firstSeq.get(runId)?.seq;
      const firstSeq = first ?? this.getRun(runId)?.nextSeq ?? 0;
      const rows = this.statements.readItems.all(
        runId,
        Math.max(query.sinceSeq ?? firstSeq, firstSeq),
        Math.max(0, query.limit),
      );
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
      this.statements.lastItems.all(runId, Math.max(0, limit)).map(toItem).reverse(),
    );
  }

  getRun(runId: string): RunRecord | undefined {
    this.assertOpen(`read run ${runId}`);
    this.flush();
    const row = this.guard("reading the run record", runId, () =>
      this.statements.getRun.get(runId),
    );
    return row ? decodeRecord(row.record, this.path, runId) : undefined;
  }

  listRuns(where?: (record: RunRecord) => boolean): RunRecord[] {
    this.assertOpen("list runs");
    this.flush();
    const rows = this.guard("listing runs", null, () => this.statements.listRuns.all());
    const records = rows.map((row) => decodeRecord(row.record, this.path, row.id));
    return where === undefined ? records : records.filter(where);
  }

  deleteRun(runId: string): void {
    this.assertOpen(`delete run ${runId}`);
    this.flush();
    this.guard("deleting the run", runId, () => {
      this.statements.deleteRun.run(runId);
      this.statements.deleteItems.run(runId);
    });
    this.pending.forget(runId);
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
    if (this.pending.isEmpty) {
      return;
    }
    // Items the same transaction would prune are not written at all (a flood of output would
    // otherwise pass through the file). The write is synchronous: the batch is dropped only once
    // it is written, and a failed write leaves it pending for the next flush to retry.
    this.pending.dropBeyondRetention();
    this.write(this.pending.items, [...this.pending.runs.values()]);
    this.pending.clear();
  }

  private write(items: readonly PendingItem[], runs: readonly RunRecord[]): void {
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
          prune.run(runId, this.pending.floor(runId)),
        );
      }
    })();
  }

  /** Size figures, for benchmarks and status: the file's pages, and those holding live data. */
  stats(): { bytes: number; liveBytes: number } {
    this.assertOpen("read the store's size");
    this.flush();
    return databaseSize(this.db);
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
        // From a timer nobody awaits: reported instead of crashing the agent; retried on the next write.
        this.onError(flushFailure(error));
      }
    }, this.flushInterval);
    this.timer.unref();
  }
}
