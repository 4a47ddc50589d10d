import { randomBytes } from "node:crypto";
import { constants } from "node:os";
import { ProcessError } from "../../base/errors.js";
import { isFinished, streamOffset } from "../../model/run-record.js";
import type { RunSnapshot } from "../../model/run-events.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import { inputFields, noticeFields } from "../core/format.js";
import { budgetedRange, HINT_LIMIT_BYTES, type Keep } from "../core/token-budget.js";

/** Codex's numbers: a yield is clamped to 250..30000 ms, an empty write_stdin (a poll) to 5000..300000. */
export const MIN_YIELD_TIME_MS = 250;
export const MAX_YIELD_TIME_MS = 30_000;
export const MIN_EMPTY_YIELD_TIME_MS = 5_000;
export const MAX_EMPTY_YIELD_TIME_MS = 300_000;
export const DEFAULT_EXEC_YIELD_TIME_MS = 10_000;
export const DEFAULT_WRITE_YIELD_TIME_MS = 250;
/** Sessions remembered per manager; the oldest whose run has ended are forgotten first. */
const MAX_SESSIONS = 1024;

interface Session {
  runId: string;
  /** The owning ACP session: a session id is no key into another session's runs. */
  owner: string;
  /** Output offset delivered so far: each answer carries what follows it. */
  cursor: number;
  /** Its exit was delivered: the next write_stdin says the session is gone. */
  closed: boolean;
}

/**
 * The unified exec surface's numeric session ids (Codex's model passes numbers) over run ids, and
 * what each session has delivered. Per manager, bounded.
 */
export class UnifiedSessions {
  private readonly sessions = new Map<number, Session>();
  private nextId = 1000;

  open(runId: string, owner: string): number {
    if (this.sessions.size >= MAX_SESSIONS) {
      const closed = [...this.sessions].find(([, session]) => session.closed);
      this.sessions.delete((closed ?? [...this.sessions][0]!)[0]);
    }
    const id = this.nextId++;
    this.sessions.set(id, { runId, owner, cursor: 0, closed: false });
    return id;
  }

  /** The session for `id` in `owner`'s ACP session; `live`: refused once its exit was delivered. */
  get(id: number, owner: string, live: boolean): Session {
    const session = this.sessions.get(id);
    if (!session || session.owner !== owner || (live && session.closed)) {
      throw new ProcessError(
        "not_found",
        `Unknown session id ${id}${session?.closed ? " (its process exited and its last output was delivered; read it again with read_output)" : ""}: start a command with exec_command`,
      );
    }
    return session;
  }
}

/** How unified exec answers name omitted bytes: the read_output call that reads them. */
export function readOutputHint(sessionId: number): (offset: number, bytes: number) => string {
  return (offset, bytes) =>
    `read_output ${JSON.stringify({ session_id: sessionId, offset, limit: Math.min(bytes, HINT_LIMIT_BYTES) })}`;
}

/**
 * A unified exec answer in Codex's shape: `chunk_id`, `wall_time_seconds`, `exit_code` (the run
 * ended: the session is closed) or `session_id` (still running), `original_token_count`, `output`
 * (what followed the session's cursor, within the budget); plus `input_required` when it waits
 * for input.
 */
export async function unifiedAnswer(
  manager: ProcessManager,
  sessions: UnifiedSessions,
  id: number,
  owner: string,
  run: RunSnapshot,
  budget: { maxTokens: number; keep: Keep },
  startedAtMs: number,
): Promise<Record<string, unknown>> {
  const session = sessions.get(id, owner, false);
  const end = streamOffset(run);
  const cut = await budgetedRange(manager, run.id, {
    sessionId: owner,
    from: Math.min(session.cursor, end),
    to: end,
    ...budget,
    hint: readOutputHint(id),
  });
  session.cursor = end;
  const ended = isFinished(run.status);
  session.closed = ended;
  return {
    chunk_id: randomBytes(3).toString("hex"),
    wall_time_seconds: Math.round(performance.now() - startedAtMs) / 1000,
    ...(ended ? { exit_code: exitCodeOf(run) } : { session_id: id }),
    original_token_count: cut.originalTokens,
    output: cut.text,
    ...(cut.truncated ? { original_bytes: cut.originalBytes, omitted: cut.omitted } : {}),
    ...(ended && run.signal ? { signal: run.signal } : {}),
    ...(ended && run.exitCode === null && run.error ? { error: run.error } : {}),
    ...inputFields(run, "snake", `write_stdin {"session_id": ${id}, "chars": "<your answer>\\n"}`),
    ...noticeFields(run),
  };
}

/** Codex's clamp of a yield: 250..30000 ms, and 5000..300000 ms for an empty write_stdin (a poll). */
export function clampYield(requested: number, emptyPoll: boolean): number {
  return emptyPoll
    ? Math.min(MAX_EMPTY_YIELD_TIME_MS, Math.max(MIN_EMPTY_YIELD_TIME_MS, requested))
    : Math.min(MAX_YIELD_TIME_MS, Math.max(MIN_YIELD_TIME_MS, requested));
}

/** The exit code as a shell reports it: 128 + the signal's number for a command a signal ended. */
function exitCodeOf(run: RunSnapshot): number {
  if (run.exitCode !== null) {
    return run.exitCode;
  }
  const signals: Record<string, number | undefined> = constants.signals;
  return run.signal ? 128 + (signals[run.signal] ?? 0) : -1;
}
