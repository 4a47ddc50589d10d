/**
 * What the relay (`unshare --fork`, see pid-namespace.ts) itself says, kept apart from the
 * command's output so that the exit status stays exact.
 *
 * util-linux's unshare reports a command killed by a signal by killing itself with that signal,
 * after `signal(sig, SIG_DFL)`, which fails for SIGKILL: it then prints "unshare: sigprocmask
 * unblock failed: Invalid argument" and exits 1. So a command SIGKILLed from outside the host
 * (`kill -9`, the OOM killer) would read as exit 1 with a stray line in its output. The relay's
 * stderr goes to a file of its own instead (the command gets its stderr back before it runs), and
 * `exitOf` turns exit 1 with that message back into SIGKILL. Anything else the relay said (it
 * could not fork, say) is handed back to be shown as a notice beside the output, so nothing is lost.
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readdirSync, readSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errnoCodeOf } from "../core/thrown.js";
import type { ExitStatus } from "../core/types.js";

/** The relay says at most one line; more is not read. */
const MAX_REPORT_BYTES = 4096;
/** unshare's words when it cannot re-raise SIGKILL (the function name survives translation). */
const SIGKILL_RELAY_FAILURE = /sigprocmask/;

/**
 * Outside the namespace: stderr to the report file ($0, appended), the real one kept on fd 3;
 * then the relay. Inside: stderr back from fd 3, fd 3 closed, then the command, in place.
 */
const OUTER_SCRIPT = 'exec 3>&2 2>>"$0"; exec "$@"';
const INNER_SCRIPT = 'exec 2>&3 3>&-; exec "$@"';

const REPORT_PREFIX = "acp-terminal-relay-";
let swept = false;

/**
 * Removes the report files in `dir` whose host process is gone (a host killed by a signal runs
 * no `exit` listener): once per process, at its first report. Returns how many were removed.
 */
export function sweepStaleReports(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const pid = Number(/^acp-terminal-relay-(\d+)-/.exec(name)?.[1] ?? Number.NaN);
    if (Number.isSafeInteger(pid) && pid > 0 && !processExists(pid)) {
      unlinkQuietly(join(dir, name));
      removed++;
    }
  }
  return removed;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCodeOf(error) !== "ESRCH"; // EPERM: it exists, someone else's
  }
}

/** Report files not removed yet: removed when this process exits, if nothing removed them before. */
const live = new Set<string>();
let exitHooked = false;

function removeAtExit(path: string): void {
  live.add(path);
  if (!exitHooked) {
    exitHooked = true;
    // A host that exits without disposing (a process.exit on an error path) leaves none.
    process.once("exit", () => {
      for (const left of live) {
        unlinkQuietly(left);
      }
    });
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (or tmp was cleaned): nothing to remove.
  }
}

export class RelayReport {
  private constructor(readonly path: string) {}

  /** A new empty report file, or undefined when none can be made (the relay then writes to the terminal). */
  static create(): RelayReport | undefined {
    if (!swept) {
      swept = true;
      sweepStaleReports(tmpdir());
    }
    const path = join(tmpdir(), `${REPORT_PREFIX}${process.pid}-${randomUUID()}`);
    try {
      closeSync(openSync(path, "wx", 0o600));
      removeAtExit(path);
      return new RelayReport(path);
    } catch {
      return undefined;
    }
  }

  /** `[outer..., relay..., inner...]`: the words that run `relay` with its stderr going here. */
  wrap(relay: readonly string[]): string[] {
    return [
      "/bin/sh",
      "-c",
      OUTER_SCRIPT,
      this.path,
      ...relay,
      "/bin/sh",
      "-c",
      INNER_SCRIPT,
      "sh",
    ];
  }

  /**
   * The command's real exit, given the relay's: exit 1 with the SIGKILL failure is SIGKILL. Any
   * other words of the relay's are passed to `show`.
   */
  exitOf(status: ExitStatus, show: (text: string) => void): ExitStatus {
    const said = this.#read();
    if (said === "") {
      return status;
    }
    if (status.exitCode === 1 && SIGKILL_RELAY_FAILURE.test(said)) {
      return { exitCode: null, signal: "SIGKILL" };
    }
    show(said);
    return status;
  }

  remove(): void {
    live.delete(this.path);
    unlinkQuietly(this.path);
  }

  #read(): string {
    let fd: number | undefined;
    try {
      fd = openSync(this.path, "r");
      const bytes = Buffer.alloc(MAX_REPORT_BYTES);
      return bytes.subarray(0, readSync(fd, bytes, 0, MAX_REPORT_BYTES, 0)).toString("utf8");
    } catch {
      return ""; // removed with the namespace (a kill got there first): the status stands
    } finally {
      if (fd !== undefined) {
        closeSync(fd);
      }
    }
  }
}
