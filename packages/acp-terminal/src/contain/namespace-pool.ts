import type { NamespaceTools } from "./namespace-support.js";
import { PidNamespace } from "./pid-namespace.js";

/**
 * Hands out PID namespaces, keeping one started ahead: a holder takes a few ms to start, which a
 * create would otherwise wait for. The spare is an idle `unshare`'d `sh`, its init and a `cat`
 * (~4 MB RSS); like any holder it ends when the host goes away (its pipe closes) or on `close()`.
 * The next spare is started by `refill()`, which the caller runs once its command has spawned:
 * spawning blocks the event loop until the exec, so starting it in `take()` would delay the command.
 */
export class NamespacePool {
  #spare: Promise<PidNamespace | undefined> | undefined;
  #closed = false;

  constructor(private readonly tools: NamespaceTools) {}

  /** A started namespace, or undefined when none can be had now (the terminal falls back to its group). */
  async take(): Promise<PidNamespace | undefined> {
    if (this.#closed) {
      return undefined;
    }
    const spare = this.#spare;
    this.#spare = undefined;
    const taken = await spare;
    // A spare whose holder died meanwhile (killed from outside) is no namespace to enter.
    if (taken?.alive) {
      return taken;
    }
    taken?.end();
    return this.#start();
  }

  /**
   * Starts the next spare unless one is there, on a later turn of the event loop: spawning blocks
   * the loop until the exec, which would otherwise delay the create that asked.
   */
  refill(): void {
    setImmediate(() => {
      if (!this.#closed) {
        this.#spare ??= this.#start();
      }
    });
  }

  /** Ends the spare; later `take` calls give nothing. */
  close(): void {
    this.#closed = true;
    void this.#spare?.then((namespace) => namespace?.end());
    this.#spare = undefined;
  }

  #start(): Promise<PidNamespace | undefined> {
    // A failure (e.g. the user-namespace limit reached) is retried by the next take.
    return PidNamespace.start(this.tools).catch(() => undefined);
  }
}
