// Starts an adapter behind the stdio tap and stops it again: the tap (and the adapter under it) run
// in a process group of their own, and every process of the run carries a mark in its environment,
// so that the stop kills exactly what this run started, also what left the group.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const MARK_VARIABLE = "ACP_RECORDING_MARK";

/**
 * A run's directory under `runsDir` (named after `prefix`) with a fresh HOME and project in it,
 * the mark of its processes, and the environment every process of the run starts from.
 * @param {string} runsDir
 * @param {string} prefix
 */
export function prepareRun(runsDir, prefix) {
  mkdirSync(runsDir, { recursive: true });
  const runDir = mkdtempSync(join(runsDir, prefix));
  const home = join(runDir, "home");
  const project = join(runDir, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const mark = randomUUID();
  /** @type {Record<string, string>} */
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    TMPDIR: tmpdir(),
    [MARK_VARIABLE]: mark,
  };
  return { runDir, home, project, mark, env };
}
const TAP = fileURLToPath(new URL("./tap.mjs", import.meta.url));

/**
 * @param {{ entry: string, cwd: string, env: Record<string, string>, record: string, stderr: string }} options
 */
export function startTapped({ entry, cwd, env, record, stderr }) {
  const child = spawn(
    process.execPath,
    [TAP, "--out", record, "--stderr", stderr, "--", process.execPath, entry],
    { cwd, env, stdio: ["pipe", "pipe", "inherit"], detached: true },
  );
  const exited = /** @type {Promise<[number | null, NodeJS.Signals | null]>} */ (
    once(child, "exit")
  );
  if (child.pid === undefined || !child.stdin || !child.stdout) {
    throw new Error(`could not start the tap for ${entry}`);
  }
  return { child, pid: child.pid, exited, stdin: child.stdin, stdout: child.stdout };
}

/**
 * Closes the adapter's stdin and waits up to `graceMs` for it to exit by itself; then SIGTERM to
 * the group, SIGKILL after 3 s, and SIGKILL to any process still carrying `mark`.
 * @param {ReturnType<typeof startTapped>} tapped
 * @param {string} mark
 * @param {number} graceMs
 * @returns {Promise<{ exitedAlone: boolean, survivors: number }>}
 */
export async function stopTapped(tapped, mark, graceMs) {
  tapped.stdin.end();
  const exitedAlone = await settlesWithin(tapped.exited, graceMs);
  if (!exitedAlone) {
    signalGroup(tapped.pid, "SIGTERM");
    if (!(await settlesWithin(tapped.exited, 3_000))) {
      signalGroup(tapped.pid, "SIGKILL");
      await settlesWithin(tapped.exited, 3_000);
    }
  }
  // The group may hold children that outlived the adapter (a background command).
  signalGroup(tapped.pid, "SIGKILL");
  const survivors = markedProcesses(mark);
  for (const pid of survivors) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone in between.
    }
  }
  return { exitedAlone, survivors: survivors.length };
}

/**
 * @param {number} pid
 * @param {NodeJS.Signals} signal
 */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is empty.
  }
}

/**
 * @param {Promise<unknown>} promise
 * @param {number} ms
 */
async function settlesWithin(promise, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const result = await Promise.race([promise.then(() => true), late]);
  clearTimeout(timer);
  return result === true;
}

/**
 * The pids whose environment holds MARK_VARIABLE=mark.
 * @param {string} mark
 */
export function markedProcesses(mark) {
  const needle = `${MARK_VARIABLE}=${mark}`;
  /** @type {number[]} */
  const pids = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) {
      continue;
    }
    try {
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(needle)) {
        pids.push(Number(name));
      }
    } catch {
      // Not ours to read, or gone.
    }
  }
  return pids;
}
