import type { ExitStatus } from "../core/types.js";
import type { LaunchedCommand } from "../spawn/launch-port.js";
import { killRequest } from "./launcher-protocol.js";

/**
 * One command the launcher started, as its reports settle it: its exit, then its tree's end (or
 * its loss, when nothing reports on it any more). `send` writes a request to the launcher.
 */
export class Launched implements LaunchedCommand {
  readonly exited: Promise<ExitStatus>;
  readonly emptied: Promise<void>;
  #exit!: (status: ExitStatus) => void;
  #empty!: () => void;
  #treeAlive = true;
  #exitStatus: ExitStatus | undefined;

  constructor(
    readonly id: number,
    readonly pid: number,
    readonly outputFd: number | undefined,
    readonly inputFd: number | undefined,
    private readonly send: (line: string) => void,
  ) {
    this.exited = new Promise((resolve) => (this.#exit = resolve));
    this.emptied = new Promise((resolve) => (this.#empty = resolve));
  }

  get treeAlive(): boolean {
    return this.#treeAlive;
  }

  signalTree(signal: NodeJS.Signals): void {
    if (this.#treeAlive) {
      this.send(killRequest(this.id, signal, this.pid));
    }
  }

  exit(status: ExitStatus): void {
    this.#exitStatus ??= status;
    this.#exit(this.#exitStatus);
  }

  /** The tree is empty (or, lost: no longer watched). */
  empty(): void {
    this.#treeAlive = false;
    this.#empty();
  }

  /**
   * Its relay was killed from outside, or the launcher went away: nothing reports on it any
   * more. Its group gets SIGKILL; it counts as killed by it unless its exit was already known.
   */
  lose(): void {
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {
      // ESRCH: the group is already empty; EPERM cannot happen for our own children's group.
    }
    this.exit({ exitCode: null, signal: "SIGKILL" });
    this.empty();
  }
}
