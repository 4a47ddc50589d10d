import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errnoCodeOf } from "../../base/errors.js";

const PREFIX = "acp-process-output-";
/** Directories of earlier agents looked at per new directory (a bound on the start-up cost). */
const MAX_STALE_CHECKED = 64;

/**
 * A new temporary directory for spilled output, `acp-process-output-<pid>-XXXXXX` under the
 * system's temporary directory. Directories left by agents that died without `dispose()` (their
 * pid no longer exists) are removed first.
 */
export function spillTempDirectory(): string {
  removeStale();
  return mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
}

function removeStale(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const name of names.slice(0, MAX_STALE_CHECKED)) {
    const pid = Number(/^acp-process-output-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCodeOf(error) === "EPERM";
  }
}
