import { ProcessError } from "../../base/errors.js";
import type { RunStore } from "../../store/types.js";
import type { ListRunsQuery } from "./options.js";
import type { Run } from "../run/run.js";
import { isFinished, type RunRecord } from "../../model/run-record.js";

const MAX_LIST = 500;

/**
 * The runs a manager knows: live `Run`s of this process (their records are current) and runs
 * known only to the store (finished, or from before a restart). Session checks live here: a run
 * of another session is reported as not found.
 */
export class RunRegistry {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly store: RunStore,
    private readonly maxRuns: number,
    /** Told when a run is deleted, so what is kept beside the store (its spilled output) goes too. */
    private readonly onDelete: (runId: string) => void = () => {},
  ) {}

  add(run: Run): void {
    this.evictBeyondCap();
    this.runs.set(run.record.id, run);
  }

  liveRuns(): Run[] {
    return [...this.runs.values()];
  }

  live(runId: string, sessionId: string | undefined): Run | undefined {
    const run = this.runs.get(runId);
    if (run && sessionId !== undefined && run.record.sessionId !== sessionId) {
      throw ProcessError.notFound(runId);
    }
    return run;
  }

  requireLive(runId: string, sessionId: string | undefined): Run {
    const run = this.live(runId, sessionId);
    if (run) {
      return run;
    }
    throw ProcessError.notRunning(runId, this.record(runId, sessionId).status);
  }

  record(runId: string, sessionId: string | undefined): RunRecord {
    const record = this.runs.get(runId)?.record ?? this.store.getRun(runId);
    if (!record || (sessionId !== undefined && record.sessionId !== sessionId)) {
      throw ProcessError.notFound(runId);
    }
    return record;
  }

  all(): RunRecord[] {
    return this.matching(() => true);
  }

  /**
   * The records `where` takes, live ones first: filtered before anything is copied (a call's
   * list of its own runs costs what it finds, not every run kept).
   */
  private matching(where: (record: RunRecord) => boolean): RunRecord[] {
    const records: RunRecord[] = [];
    for (const run of this.runs.values()) {
      if (where(run.record)) {
        records.push(run.record);
      }
    }
    records.push(...this.store.listRuns((stored) => !this.runs.has(stored.id) && where(stored)));
    return records;
  }

  /** How many runs there are, live or stored, without copying a stored one. */
  private count(): number {
    let stored = 0;
    // The store's filter sees every record before it copies: counting there copies none.
    this.store.listRuns((record) => {
      if (!this.runs.has(record.id)) {
        stored++;
      }
      return false;
    });
    return this.runs.size + stored;
  }

  /** Newest first, filtered by session and status; `limit` default 50, max 500. */
  list(query: ListRunsQuery): RunRecord[] {
    const statuses =
      query.status === undefined
        ? undefined
        : new Set(typeof query.status === "string" ? [query.status] : query.status);
    if (query.limit !== undefined && (!Number.isInteger(query.limit) || query.limit < 1)) {
      throw ProcessError.invalidParams(
        "limit",
        `a whole number of runs from 1 (larger values are capped at ${MAX_LIST})`,
        query.limit,
      );
    }
    const limit = Math.min(query.limit ?? 50, MAX_LIST);
    const labels = Object.entries(query.labels ?? {});
    return this.matching(
      (r) =>
        (query.sessionId === undefined || r.sessionId === query.sessionId) &&
        (!statuses || statuses.has(r.status)) &&
        labels.every(([key, value]) => r.labels[key] === value),
    )
      .sort((a, b) => b.createdAtMs - a.createdAtMs)
      .slice(0, limit);
  }

  /** Drops a live run from this registry only; what the store holds stays (a recovered run that could not be claimed). */
  forget(runId: string): void {
    this.runs.delete(runId);
  }

  delete(runId: string): void {
    this.runs.delete(runId);
    this.store.deleteRun(runId);
    this.onDelete(runId);
  }

  /** Deletes a finished run and its output; a run not finished must be killed first. */
  deleteFinishedRun(runId: string, sessionId: string | undefined): void {
    const record = this.record(runId, sessionId);
    if (!isFinished(record.status)) {
      throw new ProcessError(
        "still_running",
        `Run ${runId} is ${record.status}; kill it before removing it`,
      );
    }
    this.delete(runId);
  }

  /** Deletes finished runs matching `predicate`; returns how many. */
  deleteFinished(predicate: (record: RunRecord) => boolean): number {
    let removed = 0;
    for (const record of this.all()) {
      if (!isFinished(record.status) || !predicate(record)) {
        continue;
      }
      this.delete(record.id);
      removed++;
    }
    return removed;
  }

  private evictBeyondCap(): void {
    if (this.count() < this.maxRuns) {
      return;
    }
    const records = this.all();
    const finished = records
      .filter((r) => isFinished(r.status))
      .sort((a, b) => (a.endedAtMs ?? 0) - (b.endedAtMs ?? 0));
    const evicted = finished.slice(0, records.length - this.maxRuns + 1);
    for (const record of evicted) {
      this.delete(record.id);
    }
    if (records.length - evicted.length >= this.maxRuns) {
      throw new ProcessError(
        "limit_reached",
        `${this.maxRuns} runs are active (maxRuns); wait for some to finish or kill them`,
      );
    }
  }
}
