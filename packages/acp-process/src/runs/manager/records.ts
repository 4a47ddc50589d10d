import { randomBytes } from "node:crypto";
import { DEFAULT_PTY_SIZE } from "acp-terminal";
import { ProcessError } from "../../base/errors.js";
import type { StartRunOptions } from "./options.js";
import type { RunRecord } from "../../model/run-record.js";

/** A fresh `queued` record for a start request. */
export function newRecord(
  request: StartRunOptions,
  nowMs: number,
  defaultTimeoutMs: number,
): RunRecord {
  return {
    id: `run_${randomBytes(5).toString("hex")}`,
    sessionId: request.sessionId,
    command: request.command,
    args: request.args ?? null,
    cwd: request.cwd ?? null,
    env: request.env ?? null,
    pty: Boolean(request.pty),
    ...(request.pty
      ? {
          ptySize:
            typeof request.pty === "object"
              ? { cols: request.pty.cols, rows: request.pty.rows }
              : { ...DEFAULT_PTY_SIZE },
        }
      : {}),
    stdin: false,
    status: "queued",
    exitCode: null,
    signal: null,
    cause: null,
    error: null,
    createdAtMs: nowMs,
    startedAtMs: null,
    endedAtMs: null,
    terminalId: null,
    timeoutMs: request.timeoutMs ?? defaultTimeoutMs,
    idleTimeoutMs: request.idleTimeoutMs ?? 0,
    nextSeq: 0,
    outputBytes: 0,
    lostBytes: 0,
    lostUnknown: false,
    lineCount: 0,
    attempts: 1,
    exitNotified: false,
    labels: request.labels ?? {},
    ...(request.maxOutputBytes ? { maxOutputBytes: request.maxOutputBytes, cappedBytes: 0 } : {}),
  };
}

/** Longest timeout a run accepts: 30 days (the clock chains timers beyond Node's 24.8-day cap). */
const MAX_RUN_TIMEOUT_MS = 30 * 24 * 3_600_000;

export function validateStart(request: StartRunOptions): void {
  if (typeof request.command !== "string" || request.command.trim() === "") {
    throw ProcessError.invalidParams("command", "a non-empty string", request.command);
  }
  if (
    request.maxOutputBytes !== undefined &&
    (!Number.isSafeInteger(request.maxOutputBytes) || request.maxOutputBytes < 1)
  ) {
    throw ProcessError.invalidParams(
      "maxOutputBytes",
      "a positive whole number of bytes",
      request.maxOutputBytes,
    );
  }
  for (const [name, value] of [
    ["timeoutMs", request.timeoutMs],
    ["idleTimeoutMs", request.idleTimeoutMs],
  ] as const) {
    if (
      value !== undefined &&
      (!Number.isFinite(value) || value < 0 || value > MAX_RUN_TIMEOUT_MS)
    ) {
      throw ProcessError.invalidParams(
        name,
        `a number of milliseconds from 0 to ${MAX_RUN_TIMEOUT_MS} (30 days; 0 = none)`,
        value,
      );
    }
  }
}
