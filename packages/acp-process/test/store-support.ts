import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunRecord } from "../src/index.js";
import { type Cleanups } from "./crash-support.js";

/** A path for a fresh SQLite file in its own temp directory, removed by `cleanups`. */
export function tempDb(cleanups: Cleanups, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "runs.db");
}

/** A stored run as the manager writes it: `running` in session `s`, on terminal `t1`, nothing read yet. */
export function runRecord(id: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id,
    sessionId: "s",
    command: "echo again",
    args: null,
    cwd: null,
    env: null,
    pty: false,
    stdin: false,
    status: "running",
    exitCode: null,
    signal: null,
    cause: null,
    error: null,
    createdAtMs: 1,
    startedAtMs: 1,
    endedAtMs: null,
    terminalId: "t1",
    timeoutMs: 60_000,
    idleTimeoutMs: 0,
    nextSeq: 0,
    outputBytes: 0,
    lostBytes: 0,
    lostUnknown: false,
    lineCount: 0,
    attempts: 1,
    exitNotified: false,
    labels: {},
    ...overrides,
  };
}
