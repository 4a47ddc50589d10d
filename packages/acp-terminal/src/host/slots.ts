import { TerminalError } from "../core/errors.js";
import type { TerminalOwner } from "./types.js";

const sessionKey = (owner: TerminalOwner): string =>
  `${owner.connectionId}\u0000${owner.sessionId}`;

/** True when both owners are the same connection and session. */
export function sameOwner(a: TerminalOwner, b: TerminalOwner): boolean {
  return sessionKey(a) === sessionKey(b);
}

function limitReached(what: string, live: number, option: string, limit: number): TerminalError {
  return new TerminalError(
    "limit_reached",
    `${what} has ${live} live terminals, the most allowed (${option} ${limit}): release terminals you no longer need`,
    { live, limit, option },
  );
}

/**
 * Counts live terminals (created, not released) and creates in flight, per session and in all,
 * against `maxTerminalsPerSession` and `maxTerminals`.
 */
export class TerminalSlots {
  readonly #perSession = new Map<string, number>();
  #total = 0;

  constructor(
    private readonly maxTerminalsPerSession: number,
    private readonly maxTerminals: number,
  ) {}

  /** Takes a slot or throws "limit_reached"; returns a function that gives it back once. */
  reserve(owner: TerminalOwner): () => void {
    const key = sessionKey(owner);
    const inSession = this.#perSession.get(key) ?? 0;
    if (inSession >= this.maxTerminalsPerSession) {
      throw limitReached(
        "This session",
        inSession,
        "maxTerminalsPerSession",
        this.maxTerminalsPerSession,
      );
    }
    if (this.#total >= this.maxTerminals) {
      throw limitReached("The host", this.#total, "maxTerminals", this.maxTerminals);
    }
    this.#perSession.set(key, inSession + 1);
    this.#total++;
    let freed = false;
    return () => {
      if (freed) {
        return;
      }
      freed = true;
      const left = (this.#perSession.get(key) ?? 1) - 1;
      if (left > 0) {
        this.#perSession.set(key, left);
      } else {
        this.#perSession.delete(key);
      }
      this.#total--;
    };
  }
}
