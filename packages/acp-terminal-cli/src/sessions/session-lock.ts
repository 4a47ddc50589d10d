import { createHash } from "node:crypto";
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { errnoCodeOf, messageOf } from "acp-terminal/internal";
import { stateSubdir } from "../state/state-dir.js";

/** Who holds a session: the run's pid, when that process started (pids are reused), since when. */
interface Holder {
  pid: number;
  /** `/proc/<pid>/stat` field 22, so a pid reused by another process is not taken for the holder. */
  startTicks: string | undefined;
  since: string;
}

/**
 * One run per session: a file per agent and session id in the state directory's `locks/`, made
 * with O_EXCL by the run that uses the session and removed when it ends. A lock whose holder is
 * gone (killed with SIGKILL, say) is taken over. Two runs cannot both hold it: the second is
 * refused with a line saying who holds it.
 */
export class SessionLock {
  private constructor(private readonly file: string) {}

  /** Takes the lock of `sessionId`; or the line that says why not (held, or no state directory). */
  static take(env: NodeJS.ProcessEnv, agent: string, sessionId: string): SessionLock | string {
    const dir = stateSubdir(env, "locks");
    if (typeof dir !== "string") {
      return `Cannot lock session ${sessionId}: ${dir.error}`;
    }
    const key = createHash("sha256").update(`${agent}\0${sessionId}`).digest("hex").slice(0, 32);
    const file = path.join(dir, `${key}.lock`);
    const me: Holder = {
      pid: process.pid,
      startTicks: startTicksOf(process.pid),
      since: new Date().toISOString(),
    };
    // Twice at most: once more after a stale lock was removed.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(file, JSON.stringify(me), { flag: "wx", mode: 0o600 });
        return new SessionLock(file);
      } catch (error) {
        if (errnoCodeOf(error) !== "EEXIST") {
          return `Cannot lock session ${sessionId}: ${messageOf(error)}`;
        }
      }
      const holder = holderOf(file);
      if (holder !== undefined && isAlive(holder)) {
        return `Session ${sessionId} is in use by another acp-terminal run (pid ${holder.pid}, since ${holder.since}): one run at a time per session; wait for it to end, or start a new session`;
      }
      try {
        unlinkSync(file);
      } catch (error) {
        if (errnoCodeOf(error) !== "ENOENT") {
          return `Cannot lock session ${sessionId}: ${messageOf(error)}`;
        }
      }
    }
    return `Cannot lock session ${sessionId}: another run took it meanwhile`;
  }

  /** Lets the session go (idempotent). */
  release(): void {
    try {
      const holder = holderOf(this.file);
      if (holder?.pid === process.pid) {
        unlinkSync(this.file);
      }
    } catch (error) {
      // Already gone (a later run took over a lock it found stale): nothing to release.
      if (errnoCodeOf(error) !== "ENOENT") {
        throw error;
      }
    }
  }
}

function holderOf(file: string): Holder | undefined {
  try {
    const parsed: object = Object(JSON.parse(readFileSync(file, "utf8")));
    const pid: unknown = Reflect.get(parsed, "pid");
    const since: unknown = Reflect.get(parsed, "since");
    const ticks: unknown = Reflect.get(parsed, "startTicks");
    return typeof pid === "number" && typeof since === "string"
      ? { pid, startTicks: typeof ticks === "string" ? ticks : undefined, since }
      : undefined;
  } catch {
    // Unreadable or half-written (its writer died mid-write): no live holder to respect.
    return undefined;
  }
}

function isAlive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return errnoCodeOf(error) === "EPERM";
  }
  const ticks = startTicksOf(holder.pid);
  return holder.startTicks === undefined || ticks === undefined || ticks === holder.startTicks;
}

/** When the process started, in clock ticks since boot (Linux); undefined elsewhere. */
function startTicksOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    // No /proc (not Linux), or the process is gone.
    return undefined;
  }
}
