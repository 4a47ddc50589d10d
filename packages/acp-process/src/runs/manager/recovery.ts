import { messageOf } from "../../base/errors.js";
import { displayCommand, snapshotOf } from "../run/describe.js";
import type { RunStore } from "../../store/types.js";
import {
  noteOn,
  isFinished,
  streamOffset,
  type RunRecord,
  type RunStatus,
} from "../../model/run-record.js";
import { type RunEvent, type RunSnapshot } from "../../model/run-events.js";

/**
 * What to do, on start-up, with runs a previous agent process left `queued` or `running`.
 * - `mark_lost` (default): they become `lost`; nothing is re-run.
 * - `requeue`: each goes back to `queued` under its own id (stored so, so that a restart before
 *   it starts claims it again), its `attempts` counted, and is claimed: started again through the
 *   manager's scheduler, its seq numbering and output history continuing. A run that already had
 *   `maxAttempts` starts becomes `lost` instead. Only when the caller opts in: re-running a
 *   command is never silent (a notice in its history, a `status` event, the report).
 */
export interface RecoveryPolicy {
  onRunning: "mark_lost" | "requeue";
  /** `requeue` only: most starts of one run, the first one included. Default 3, at least 1. */
  maxAttempts?: number;
}

export interface RecoveryReport {
  lost: string[];
  /** Runs claimed again under their own id (`requeue`), with the number of the attempt started. */
  requeued: { id: string; attempt: number }[];
  /** Runs whose exit had not been notified before the restart (notified now, once). */
  notified: string[];
}

export const DEFAULT_MAX_ATTEMPTS = 3;

export interface RecoveryHooks {
  now: () => number;
  emit: (event: RunEvent) => void;
  /** Starts a `queued` record again under its id (the manager's scheduler decides when). */
  claim: (record: RunRecord) => Promise<RunSnapshot>;
  /** Runs this manager is running now: never lost, whatever the store says. */
  isLive: (runId: string) => boolean;
}

export async function recoverRuns(
  store: RunStore,
  policy: RecoveryPolicy,
  hooks: RecoveryHooks,
): Promise<RecoveryReport> {
  const report: RecoveryReport = { lost: [], requeued: [], notified: [] };
  const maxAttempts = Math.max(1, Math.floor(policy.maxAttempts ?? DEFAULT_MAX_ATTEMPTS));
  for (const record of store.listRuns()) {
    if (hooks.isLive(record.id)) {
      continue;
    }
    if (record.status === "queued" || record.status === "running") {
      const previous = record.status;
      const interrupted = `the agent restarted while this run was ${previous}`;
      if (policy.onRunning !== "requeue") {
        markLost(
          store,
          record,
          `${interrupted}; its outcome is unknown: ${displayCommand(record)}`,
          hooks,
        );
        report.lost.push(record.id);
      } else if (record.attempts >= maxAttempts) {
        markLost(
          store,
          record,
          `${interrupted}; not started again: it had ${record.attempts} of at most ${maxAttempts} attempts (recovery policy requeue): ${displayCommand(record)}`,
          hooks,
        );
        report.lost.push(record.id);
      } else {
        const claimed = await claim(
          store,
          record,
          `${interrupted}; started again under the same id as attempt ${record.attempts + 1} of at most ${maxAttempts} (recovery policy requeue)`,
          hooks,
        );
        if (claimed) {
          report.requeued.push({ id: record.id, attempt: record.attempts });
          continue; // the run is live now: its own exit is notified when it ends
        }
        report.lost.push(record.id);
      }
    }
    if (!record.exitNotified && isFinished(record.status)) {
      record.exitNotified = true;
      store.putRun(record, { urgent: true });
      report.notified.push(record.id);
      hooks.emit({ type: "exit", run: snapshotOf(record, hooks.now()) });
    }
  }
  store.flush();
  return report;
}

/**
 * Back to `queued` under the same id, stored before it starts (a crash now leaves it to the next
 * restart's claim), then claimed. False (and the run `lost`, saying why) when the manager refuses it.
 */
async function claim(
  store: RunStore,
  record: RunRecord,
  why: string,
  hooks: RecoveryHooks,
): Promise<boolean> {
  const previous = record.status;
  Object.assign(record, {
    status: "queued",
    exitCode: null,
    signal: null,
    cause: null,
    error: null,
    startedAtMs: null,
    endedAtMs: null,
    terminalId: null,
    exitNotified: false,
  });
  record.attempts += 1;
  appendNotice(store, record, `${why}: ${displayCommand(record)}`, hooks.now());
  store.putRun(record, { urgent: true });
  hooks.emit({ type: "status", run: snapshotOf(record, hooks.now()), previous });
  try {
    await hooks.claim(record);
    return true;
  } catch (error) {
    markLost(
      store,
      record,
      `the agent restarted and could not start this run again (${messageOf(error)}): ${displayCommand(record)}`,
      hooks,
    );
    return false;
  }
}

function markLost(
  store: RunStore,
  record: RunRecord,
  error: string,
  hooks: Pick<RecoveryHooks, "now" | "emit">,
): void {
  const previous: RunStatus = record.status;
  record.status = "lost";
  record.endedAtMs = hooks.now();
  record.terminalId = null;
  record.error = error;
  appendNotice(store, record, error, hooks.now());
  store.putRun(record, { urgent: true });
  hooks.emit({ type: "status", run: snapshotOf(record, hooks.now()), previous });
}

function appendNotice(store: RunStore, record: RunRecord, text: string, atMs: number): void {
  noteOn(record, `[acp-process] ${text}`);
  store.appendItems(record.id, [
    {
      seq: record.nextSeq++,
      kind: "notice",
      text: `[acp-process] ${text}`,
      atMs,
      byteOffset: streamOffset(record),
    },
  ]);
}
