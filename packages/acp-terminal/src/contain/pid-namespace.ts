/**
 * A terminal's own PID namespace, so that nothing its command starts can escape it.
 *
 * A holder, `unshare [--user --map-current-user] --pid /bin/sh`, creates the namespace; the first
 * child its `/bin/sh` forks is the namespace's init (pid 1), which waits for a pipe from the host
 * to close.
 * The command is then started as `nsenter --pid=/proc/<holder>/ns/pid_for_children --no-fork --
 * unshare --fork -- command args`. nsenter (--no-fork) sets where children go and execs `unshare`,
 * which stays in the host's PID namespace as the relay: the pid the host reports, signals and
 * kills (the group leader). It forks the command into the namespace and waits for it: it blocks
 * SIGINT and SIGTERM meanwhile (the group's signals reach the command itself), then exits with
 * the command's exit code or kills itself with the signal that killed the command, so the exit
 * status is exact (SIGKILL, which it cannot re-raise, is read back from its own stderr: see
 * relay-report.ts). The command cannot be the process that stays outside: a process whose children
 * go to another PID namespace cannot create threads (clone(CLONE_THREAD) fails with EINVAL), which
 * node, java or go need. Inside the namespace the command sees namespace pids (`$$` is 2 or 3).
 * `setsid`, `setsid -f`, a double fork or `nohup` leave the process group, never the namespace.
 *
 * When init dies the kernel SIGKILLs everything left in the namespace. Init dies when the host
 * SIGKILLs the holder's group (the terminal was killed or released, after its group's grace), or
 * when the pipe reads end-of-file because the host went away, however it went.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Socket } from "node:net";
import type { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import type { ExitStatus } from "../core/types.js";
import type { NamespaceTools } from "./namespace-support.js";
import { errnoCodeOf } from "../core/thrown.js";
import { RelayReport } from "./relay-report.js";

/**
 * The holder's script: fork init (a subshell), then say it runs; wait for init. Init waits for
 * the host's pipe to close: a child subshell does the reading (`read` until end-of-file), so that
 * init can sit in `wait`, which reaps every child, adopted orphans included (a zombie counts as a
 * member of its process group, and would keep a kill waiting for the group to empty until its
 * grace ran out). A background job reads /dev/null unless redirected, hence fd 3.
 */
const HOLDER_SCRIPT = "exec 3<&0; ( (read -r _ <&3 || :) & wait) & echo; wait";
/** Bounds the wait for a holder to start (a few ms normally). */
const START_TIMEOUT_MS = 5_000;

export class PidNamespace {
  readonly #holder: ChildProcess;
  readonly #tools: NamespaceTools;
  readonly #report = RelayReport.create();
  #ended = false;

  private constructor(holder: ChildProcess, tools: NamespaceTools) {
    this.#holder = holder;
    this.#tools = tools;
  }

  /** Starts a namespace; rejects when the holder exits, fails or stays silent for START_TIMEOUT_MS. */
  static async start(tools: NamespaceTools): Promise<PidNamespace> {
    const userFlags = tools.userNamespace ? ["--user", "--map-current-user"] : [];
    const holder = spawn(
      tools.unshare,
      [...userFlags, "--pid", "--", "/bin/sh", "-c", HOLDER_SCRIPT],
      {
        detached: true,
        stdio: ["pipe", "pipe", "ignore"],
      },
    );
    const namespace = new PidNamespace(holder, tools);
    const timers = new AbortController();
    try {
      await Promise.race([
        once(holder.stdout as Readable, "data"),
        once(holder, "exit").then(([code, signal]) => {
          throw new Error(`the namespace holder exited (${String(signal ?? code)}) before it ran`);
        }),
        delay(START_TIMEOUT_MS, undefined, { signal: timers.signal }).then(() => {
          throw new Error(`the namespace holder did not start within ${START_TIMEOUT_MS} ms`);
        }),
      ]);
    } catch (error) {
      namespace.end();
      throw error; // 'error' (spawn failed) rejects once() with it
    } finally {
      timers.abort();
    }
    holder.stdout?.destroy();
    holder.on("error", () => {}); // a failed kill: end() reports it itself
    holder.stdin?.on("error", () => {}); // EPIPE once init is gone: nothing to do
    // A namespace kept until release must not keep the host's event loop alive.
    holder.unref();
    if (holder.stdin instanceof Socket) {
      holder.stdin.unref();
    }
    return namespace;
  }

  /** False once ended, or once the holder exited. */
  get alive(): boolean {
    return !this.#ended && this.#holder.exitCode === null && this.#holder.signalCode === null;
  }

  /** The words that run a command in this namespace (see the top of this file). */
  get prefix(): string[] {
    const holder = this.#holder.pid;
    const user = this.#tools.userNamespace
      ? [`--user=/proc/${holder}/ns/user`, "--preserve-credentials"]
      : [];
    const { nsenter, unshare } = this.#tools;
    const relay = [unshare, "--fork", "--"];
    return [
      nsenter,
      ...user,
      `--pid=/proc/${holder}/ns/pid_for_children`,
      "--no-fork",
      "--",
      ...(this.#report ? this.#report.wrap(relay) : relay),
    ];
  }

  /**
   * The command's exit given the relay's (the pid the host watches): exact for SIGKILL too.
   * What the relay itself printed, if anything, is passed to `show`.
   */
  exitOf(status: ExitStatus, show: (text: string) => void): ExitStatus {
    return this.#report ? this.#report.exitOf(status, show) : status;
  }

  /** SIGKILLs the holder and its init: the kernel then SIGKILLs every process in the namespace. Idempotent. */
  end(): void {
    if (this.#ended) {
      return;
    }
    this.#ended = true;
    this.#report?.remove();
    this.#holder.stdin?.destroy();
    const pid = this.#holder.pid;
    if (pid === undefined || this.#holder.exitCode !== null || this.#holder.signalCode !== null) {
      return;
    }
    try {
      process.kill(-pid, "SIGKILL");
    } catch (error) {
      // ESRCH: init already read end-of-file and the holder exited; the namespace is gone.
      if (errnoCodeOf(error) !== "ESRCH") {
        throw error;
      }
    }
  }
}
