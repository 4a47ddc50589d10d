/**
 * A terminal's own PID namespace, so that nothing its command starts can escape it.
 *
 * A holder, `unshare [--user --map-current-user] --pid --fork --kill-child /bin/sh`, creates the
 * namespace; its `/bin/sh` is the namespace's init (pid 1), waiting for a pipe from the host to close.
 * The command is then started as `nsenter --pid=/proc/<holder>/ns/pid_for_children --no-fork --
 * command args`: with --no-fork nsenter execs the command in place, so the command itself stays in
 * the host's PID namespace (its pid, exit status and signals are exactly those of a direct spawn,
 * `$$` is the pid the host reports, and `$!` of its children too) while every process it starts is
 * created inside the namespace. `setsid`, `setsid -f`, a double fork or `nohup` leave the process
 * group, never the namespace.
 *
 * When init dies the kernel SIGKILLs everything left in the namespace. Init dies when the host
 * SIGKILLs the holder's group (the terminal was killed or released, after its group's grace), or
 * when the pipe reads end-of-file because the host went away, however it went.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import type { NamespaceTools } from "./namespace-support.js";

/**
 * Init: says it runs (the uid map is written by then), then waits for the host's pipe to close.
 * A `cat` child does the reading, so that init can sit in `wait`, which reaps every child,
 * adopted orphans included: a zombie counts as a member of its process group, and would keep a
 * kill waiting for the group to empty until its grace ran out. (A background job reads
 * /dev/null unless redirected, hence fd 3.)
 */
const INIT_SCRIPT = "echo; exec 3<&0; cat <&3 >/dev/null & wait";
/** Bounds the wait for a holder to start (a few ms normally). */
const START_TIMEOUT_MS = 5_000;

export class PidNamespace {
  readonly #holder: ChildProcess;
  readonly #tools: NamespaceTools;
  #ended = false;

  private constructor(holder: ChildProcess, tools: NamespaceTools) {
    this.#holder = holder;
    this.#tools = tools;
  }

  /** Starts a namespace; rejects when the holder exits, fails or stays silent for START_TIMEOUT_MS. */
  static async start(tools: NamespaceTools): Promise<PidNamespace> {
    const userFlags = tools.userNamespace ? ["--user", "--map-current-user"] : [];
    const holder = spawn(tools.unshare, [...userFlags, "--pid", "--fork", "--kill-child", "--", "/bin/sh", "-c", INIT_SCRIPT], {
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
    });
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
    (holder.stdin as Socket | null)?.unref();
    return namespace;
  }

  /** The words that run a command in this namespace (see the top of this file). */
  get prefix(): string[] {
    const holder = this.#holder.pid;
    const user = this.#tools.userNamespace ? [`--user=/proc/${holder}/ns/user`, "--preserve-credentials"] : [];
    return [this.#tools.nsenter, ...user, `--pid=/proc/${holder}/ns/pid_for_children`, "--no-fork", "--"];
  }

  /** SIGKILLs the holder and its init: the kernel then SIGKILLs every process in the namespace. Idempotent. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#holder.stdin?.destroy();
    const pid = this.#holder.pid;
    if (pid === undefined || this.#holder.exitCode !== null || this.#holder.signalCode !== null) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch (error) {
      // ESRCH: init already read end-of-file and the holder exited; the namespace is gone.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
}
