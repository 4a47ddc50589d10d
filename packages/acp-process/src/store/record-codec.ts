import { ProcessError, messageOf } from "../base/errors.js";
import type { RunRecord, RunStatus } from "../model/run-record.js";

const STATUSES: readonly RunStatus[] = [
  "queued",
  "running",
  "completed",
  "failed",
  "killed",
  "timed_out",
  "lost",
];
/** The same, as strings to look a stored status up in. */
const STATUS_NAMES: readonly string[] = STATUSES;

/** Fields the manager relies on, with the type each must have. */
const REQUIRED: readonly [keyof RunRecord, "string" | "number" | "boolean" | "object"][] = [
  ["sessionId", "string"],
  ["command", "string"],
  ["createdAtMs", "number"],
  ["nextSeq", "number"],
  ["outputBytes", "number"],
  ["lineCount", "number"],
  ["exitNotified", "boolean"],
  ["labels", "object"],
];

/**
 * A stored run record, checked: JSON that parses, with the id of its row, a known status and the
 * fields the manager relies on. Anything else is a `store_error` naming the file and the run, not
 * a `SyntaxError` from deep inside a read.
 */
export function decodeRecord(text: string, path: string, runId: string): RunRecord {
  const fail = (what: string, cause?: unknown): never => {
    throw new ProcessError(
      "store_error",
      `The run store ${path} holds a record for run ${runId} that ${what}: delete that run (DELETE FROM exec_runs WHERE id = '${runId}'), or move the file aside`,
      cause === undefined ? undefined : { cause },
    );
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail(`is not JSON (${messageOf(error)})`, error);
  }
  if (!isJsonObject(value)) {
    return fail("is not a JSON object");
  }
  assertRunRecord(value, runId, fail);
  return value;
}

/** Checks the id, the status, the fields the manager relies on and `attempts` (defaulted to 1). */
function assertRunRecord(
  record: Record<string, unknown>,
  runId: string,
  fail: (what: string) => never,
): asserts record is Record<string, unknown> & RunRecord {
  if (record.id !== runId) {
    fail(`names another id (${JSON.stringify(record.id)?.slice(0, 80)})`);
  }
  if (typeof record.status !== "string" || !STATUS_NAMES.includes(record.status)) {
    fail(`has an unknown status (${JSON.stringify(record.status)?.slice(0, 80)})`);
  }
  for (const [field, type] of REQUIRED) {
    if (typeof record[field] !== type || record[field] === null) {
      fail(`has no valid ${field} (expected a ${type})`);
    }
  }
  // Records written before attempts were counted had one start.
  if (record.attempts === undefined) {
    record.attempts = 1;
  } else if (typeof record.attempts !== "number") {
    fail("has no valid attempts (expected a number)");
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
