import { containmentFor } from "../contain/describe.js";
import { Launcher } from "../contain/launcher.js";
import { launcherSupport, launcherSupportLater } from "../contain/launcher-support.js";
import { NamespacePool } from "../contain/namespace-pool.js";
import { namespaceSupport } from "../contain/namespace-support.js";
import { Reaper } from "../contain/reaper.js";
import type { ExecutedProcess } from "../executors/types.js";
import { launchedPtyAvailable } from "../spawn/launched.js";
import { ExitHook } from "./exit-hook.js";
import type { Containers } from "./launch.js";
import type { ResolvedHostOptions } from "./options.js";
import type { ContainmentMode } from "./types.js";

/**
 * What keeps one host's terminals from outliving their kill, their release and the host (its
 * `containment` option): the launcher commands start through, the PID namespaces of
 * `"pid-namespace"`, and the watchdogs of the groups not yet released. Each is started on first
 * use; close() ends them all.
 */
export class TerminalContainers implements Containers {
  readonly #option: ResolvedHostOptions["containment"];
  /** SIGKILLs the groups of terminals not yet released if the process exits without dispose(). */
  readonly #exitHook = new ExitHook();
  /** SIGKILLs the same groups from outside when this process goes away in a way no hook sees (SIGKILL). */
  readonly #reaper = new Reaper();
  /** Starts the commands of this host (see contain/launcher.ts); started with the first one. */
  #launcher: Launcher | undefined;
  /** Namespaces for terminals, one kept started ahead; made with the first terminal that can have one. */
  #namespaces: NamespacePool | undefined;

  /** `stillWanted`: false once the host is being disposed (no launcher is started ahead then). */
  constructor(option: ResolvedHostOptions["containment"], stillWanted: () => boolean) {
    this.#option = option;
    // Perl and its POSIX module take 10-50 ms to start: the launcher starts ahead (its probe not
    // blocking the event loop), so that the first create does not wait for it.
    if (option === "auto") {
      void launcherSupportLater().then((tools) => {
        if (tools && stillWanted()) {
          this.launcher(false);
        }
      });
    }
  }

  /** What terminals are kept in here (found out once per process): see `TerminalHost.containment`. */
  get mode(): ContainmentMode {
    return containmentFor(this.#option);
  }

  /** The namespace pool with `containment: "pid-namespace"` where namespaces can be had. */
  get namespaces(): NamespacePool | undefined {
    const tools = this.#option === "pid-namespace" ? namespaceSupport() : undefined;
    return tools && (this.#namespaces ??= new NamespacePool(tools));
  }

  /** The launcher to start a command through (`pty`: a PTY terminal), or undefined where none can. */
  launcher(pty: boolean): Launcher | undefined {
    const tools = this.#option === "off" ? undefined : launcherSupport();
    if (!tools || (pty && !launchedPtyAvailable())) {
      return undefined;
    }
    if (!this.#launcher?.alive) {
      this.#launcher = Launcher.start(tools);
    }
    return this.#launcher;
  }

  /** Watches a terminal's group from its spawn until watchDone(), in case this process dies. */
  watch(process: Pick<ExecutedProcess, "pid" | "tree">): void {
    this.#exitHook.track(process.pid);
    // The launcher is the watchdog of what it started; the reaper watches the rest.
    if (!process.tree) {
      this.#reaper.track(process.pid);
    }
  }

  /** The terminal was released: its group is gone. */
  watchDone(process: Pick<ExecutedProcess, "pid" | "tree">): void {
    this.#exitHook.untrack(process.pid);
    if (!process.tree) {
      this.#reaper.untrack(process.pid);
    }
  }

  /** Ends the watchdogs, the launcher and the spare namespace (once every terminal was released). */
  close(): void {
    this.#exitHook.clear();
    this.#reaper.close();
    this.#launcher?.close();
    this.#namespaces?.close();
  }
}
