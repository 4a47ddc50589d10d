/**
 * The watchdog that outlives the host. One small `/bin/sh` per TerminalHost, started with its first
 * terminal, reads `+<pgid>` and `-<pgid>` lines from a pipe whose only writer is the host. When
 * the host goes away, however it goes (exit, crash, an unhandled signal, SIGKILL), the kernel
 * closes that pipe; the reaper reads end-of-file and SIGKILLs every group still listed.
 *
 * It runs in its own session and ignores SIGINT, SIGTERM, SIGHUP and SIGQUIT, so a signal that
 * ends the host's foreground group (Ctrl-C, a closed terminal) cannot end it first. A group is
 * unlisted once its terminal was released (its members are gone), so a pgid the OS later reuses
 * for someone else's group is never killed. Each `-` removes one `+`: a pgid listed twice stays
 * listed until both are removed.
 *
 * A SIGKILL of the host between a spawn and its `+` line (microseconds) leaves that one group
 * unwatched; nothing in user space can close that gap without the kernel's help.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Socket } from "node:net";

const REAPER_SHELL = "/bin/sh";
const REAPER_SCRIPT = `trap '' INT TERM HUP QUIT
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) p=\${line#-}; case $groups in *" $p "*) groups=\${groups%% $p *}' '\${groups#* $p } ;; esac ;;
  esac
done
for p in $groups; do kill -s KILL -- "-$p" 2>/dev/null; done`;

export class Reaper {
  /** pgid → how many times it is listed, to list them again in a reaper started after one died. */
  readonly #groups = new Map<number, number>();
  #child: ChildProcess | undefined;
  #closed = false;

  /** The reaper's pid while one runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.#child?.exitCode === null ? this.#child.pid : undefined;
  }

  /** Lists `pgid`: SIGKILLed if the host goes away before `untrack(pgid)`. */
  track(pgid: number): void {
    if (pgid <= 0 || this.#closed) {
      return;
    }
    this.#groups.set(pgid, (this.#groups.get(pgid) ?? 0) + 1);
    if (!this.#running()) {
      this.#start(); // lists every group, this one included
    } else {
      this.#send(`+${pgid}\n`);
    }
  }

  /** Unlists `pgid` once its group is gone. */
  untrack(pgid: number): void {
    const count = this.#groups.get(pgid);
    if (count === undefined) {
      return;
    }
    if (count > 1) {
      this.#groups.set(pgid, count - 1);
    } else {
      this.#groups.delete(pgid);
    }
    this.#send(`-${pgid}\n`);
  }

  /**
   * Ends the reaper: it reads end-of-file and kills what is still listed (nothing, once every
   * terminal was released). Later `track` calls are ignored.
   */
  close(): void {
    this.#closed = true;
    this.#child?.stdin?.end();
    this.#child = undefined;
  }

  #running(): boolean {
    return (
      this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null
    );
  }

  #start(): void {
    const child = spawn(REAPER_SHELL, ["-c", REAPER_SCRIPT], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    // A reaper that cannot start or dies leaves the groups to the exit hook; the next track starts another.
    child.on("error", () => {});
    child.stdin?.on("error", () => {});
    // Neither the reaper nor its pipe may keep the host's event loop alive.
    child.unref();
    if (child.stdin instanceof Socket) {
      child.stdin.unref();
    }
    this.#child = child;
    const lines = [...this.#groups].flatMap(([pgid, count]) =>
      Array<string>(count).fill(`+${pgid}\n`),
    );
    this.#send(lines.join(""));
  }

  #send(lines: string): void {
    if (lines && this.#running()) {
      this.#child?.stdin?.write(lines);
    }
  }
}
