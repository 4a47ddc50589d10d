import { setTimeout as delay } from "node:timers/promises";
import type { ProcessGroup } from "./types.js";
import type { RemoteConnection } from "./remote-connection.js";
import type { RemoteEvent } from "./remote-events.js";

/** After the grace's SIGKILL, how long to wait for the agent to see the group empty. */
const AFTER_KILL_WAIT_MS = 5000;

/**
 * A terminal's process group on the other machine, reached through the agent by the terminal's
 * token (the agent knows its pgid). Termination is the local algorithm (terminate/kill.ts) with the
 * group's emptiness reported by the agent, which looks every 20 ms while asked to (`watch`).
 */
export class RemoteGroup implements ProcessGroup {
  #alive = true;
  #emptyWaiters: (() => void)[] = [];
  #gone = false;
  #released = false;
  #onRelease: (() => void)[] = [];

  constructor(
    private readonly connection: RemoteConnection,
    private readonly token: string,
  ) {}

  onEvent(event: RemoteEvent): void {
    if (event.kind === "exit") {
      this.#alive = event.groupAlive;
    } else if (
      event.kind === "empty" ||
      event.kind === "lost" ||
      event.kind === "connection-lost"
    ) {
      this.#gone = event.kind !== "empty";
      this.#alive = false;
      for (const wake of this.#emptyWaiters.splice(0)) {
        wake();
      }
    }
  }

  onRelease(listener: () => void): void {
    this.#onRelease.push(listener);
  }

  signal(signal: NodeJS.Signals): void {
    this.connection.send(`signal ${this.token} ${signal.replace(/^SIG/, "")}`);
  }

  alive(): boolean {
    return this.#alive;
  }

  async terminate(options: { signal: NodeJS.Signals; graceMs: number }): Promise<void> {
    if (this.#gone || this.connection.lost !== undefined) {
      return;
    }
    const empty = this.#whenEmpty();
    this.signal(options.signal);
    const timers = new AbortController();
    try {
      const graceOver = await Promise.race([
        empty.then(() => false),
        delay(options.graceMs, true, { signal: timers.signal }).catch(() => false),
      ]);
      if (graceOver) {
        this.signal("SIGKILL");
        await Promise.race([
          empty,
          delay(AFTER_KILL_WAIT_MS, undefined, { signal: timers.signal }).catch(() => undefined),
        ]);
      }
    } finally {
      timers.abort();
    }
  }

  /** The terminal was released: the agent kills what carries its marker and forgets it. Idempotent. */
  release(): void {
    if (this.#released) {
      return;
    }
    this.#released = true;
    for (const listener of this.#onRelease) {
      listener();
    }
    try {
      this.connection.send(`release ${this.token}`);
    } catch {
      // The connection is gone: the agent killed everything of this connection when it noticed.
    }
  }

  /** Resolves once the agent finds no process left in the group (or cannot say any more). */
  #whenEmpty(): Promise<void> {
    const empty = new Promise<void>((resolve) => this.#emptyWaiters.push(resolve));
    try {
      this.connection.send(`watch ${this.token}`);
    } catch {
      this.onEvent({ kind: "connection-lost", reason: "gone" });
    }
    return empty;
  }
}
