/**
 * The last line of defence against orphans: when the host's process exits without `dispose()`
 * (`process.exit()` on an error path, an uncaught exception), every process group the host still
 * owns gets SIGKILL from a synchronous `exit` listener. There is no time for SIGTERM and a grace
 * there: Node runs no timers after `exit`. Nothing can cover a host that is itself SIGKILLed.
 *
 * The listener is added when the first group is tracked and removed when the last one is
 * untracked (or on dispose), so idle hosts leave no listener behind.
 */
export class ExitHook {
  /** Group id → how many tracked terminals it leads (a released terminal's pid may be reused). */
  readonly #groups = new Map<number, number>();
  readonly #onExit = (): void => {
    for (const pid of this.#groups.keys()) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // ESRCH (the group is already empty) or EPERM: nothing more can be done while exiting.
      }
    }
  };

  /** Kills the group led by `pid` if the process exits before `untrack(pid)`. */
  track(pid: number): void {
    if (pid <= 0) {
      return; // no group to signal (a process that never got a pid)
    }
    if (this.#groups.size === 0) {
      process.on("exit", this.#onExit);
    }
    this.#groups.set(pid, (this.#groups.get(pid) ?? 0) + 1);
  }

  untrack(pid: number): void {
    const count = this.#groups.get(pid);
    if (count === undefined) {
      return;
    }
    if (count > 1) {
      this.#groups.set(pid, count - 1);
    } else {
      this.#groups.delete(pid);
    }
    if (this.#groups.size === 0) {
      process.off("exit", this.#onExit);
    }
  }

  /** Forgets every group and removes the listener. */
  clear(): void {
    this.#groups.clear();
    process.off("exit", this.#onExit);
  }
}
