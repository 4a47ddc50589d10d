import { displayCommand, snapshotOf } from "./describe.js";
import type { RunStore } from "../store/types.js";
import { isFinished, type RunEvent, type RunRecord, type RunSnapshot } from "./types.js";

/**
 * What to do, on start-up, with runs a previous agent process left `queued` or `running`.
 * - `mark_lost` (default): they become `lost`; nothing is re-run.
 * - `requeue`: they become `lost` and a new run with the same command is started for each,
 *   labelled `requeuedFrom`. Only when the caller opts in: re-running a command is never silent.
 */
export interface RecoveryPolicy {
  onRunning: "mark_lost" | "requeue";
}

export interface RecoveryReport {
  lost: string[];
  requeued: { from: string; to: string }[];
  /** Runs whose exit had not been notified before the restart (notified now, once). */
  notified: string[];
}

export async function recoverRuns(
  store: RunStore,
  policy: RecoveryPolicy,
  hooks: {
    now: () => number;
    emit: (event: RunEvent) => void;
    restart: (record: RunRecord) => Promise<RunSnapshot>;
    /** Runs this manager is running now: never lost, whatever the store says. */
    isLive: (runId: string) => boolean;
  },
): Promise<RecoveryReport> {
  const report: RecoveryReport = { lost: [], requeued: [], notified: [] };
  for (const record of store.listRuns()) {
    if (hooks.isLive(record.id)) continue;
    if (record.status === "queued" || record.status === "running") {
      const previous = record.status;
      record.status = "lost";
      record.endedAtMs = hooks.now();
      record.terminalId = null;
      record.error = `the agent restarted while this run was ${previous}; its outcome is unknown: ${displayCommand(record)}`;
      report.lost.push(record.id);
      if (policy.onRunning === "requeue") {
        const restarted = await hooks.restart(record);
        record.labels = { ...record.labels, requeuedAs: restarted.id };
        report.requeued.push({ from: record.id, to: restarted.id });
      }
      store.appendItems(record.id, [
        { seq: record.nextSeq++, kind: "notice", text: `[acp-process] ${record.error}`, atMs: hooks.now(), byteOffset: record.outputBytes },
      ]);
      store.putRun(record, { urgent: true });
      hooks.emit({ type: "status", run: snapshotOf(record, hooks.now()), previous });
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
