import { messageOf } from "../../base/errors.js";
import type { RunRecord } from "../../model/run-record.js";
import type { RunStore } from "../../store/types.js";

/**
 * Writes a run's record through to the store. A store that fails is noted in the record's
 * `error` (the first failure only: the rest would repeat it), never thrown: the run goes on, its
 * terminal is released and its waiters resolve.
 */
export class RecordSaver {
  private failure: string | null = null;

  constructor(
    private readonly record: RunRecord,
    private readonly store: RunStore,
  ) {}

  save(): void {
    try {
      this.store.putRun(this.record, { urgent: true });
    } catch (error) {
      this.noteFailure(error);
    }
  }

  noteFailure(error: unknown): void {
    if (this.failure !== null) {
      return; // the first failure says it; the rest would repeat it
    }
    this.failure = `the run store failed (${messageOf(error)}), so this run's stored record or output may be incomplete: check the disk and the database file`;
    this.record.error = this.record.error ? `${this.record.error}; ${this.failure}` : this.failure;
  }

  /** Sets the error the run ended with; a store failure noted earlier stays, after it. */
  noteEnd(endError: string | null): void {
    if (endError && this.failure !== null && this.record.error === this.failure) {
      this.record.error = `${endError}; ${this.failure}`;
    } else {
      this.record.error ??= endError;
    }
  }
}
