import type {
  ActiveSession,
  ActiveSessionMessage,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { cutText } from "acp-terminal/internal";
import type { TurnEnd } from "../conversation/driver.js";

/** Characters of an agent's error message quoted in a turn's ending. */
const MAX_QUOTED_CHARS = 500;

/**
 * Where v2 turns end, read from the session's updates. A v2 prompt's answer only says that the
 * message was taken: a turn ends at the first idle state that either follows a running (or
 * requires_action) state read during the turn, or gives a stop reason (an idle snapshot from
 * before the prompt has none).
 */
export class V2Turns {
  /** The turn under way: resolved when its end is read. */
  #turnEnded: ((end: TurnEnd) => void) | undefined;
  /** A running (or requires_action) state was read during the turn under way. */
  #worked = false;

  /** A turn starts (before its prompt is sent): its end. */
  started(): Promise<TurnEnd> {
    this.#worked = false;
    return new Promise<TurnEnd>((resolve) => (this.#turnEnded = resolve));
  }

  /**
   * Reads the session's updates until `signal` aborts or the session is disposed, handing each to
   * `read` before looking at where the turn is.
   */
  async follow(
    session: ActiveSession,
    signal: AbortSignal,
    read: (update: ActiveSessionMessage["update"]) => void,
  ): Promise<void> {
    try {
      for (;;) {
        this.#read(await session.nextUpdate(signal), read);
      }
    } catch {
      // Aborted at the end of the run, or the session helper was disposed.
    }
  }

  #read(message: ActiveSessionMessage, read: (update: ActiveSessionMessage["update"]) => void) {
    read(message.update);
    if (message.kind === "stop") {
      const stopReason = typeof message.stopReason === "string" ? message.stopReason : undefined;
      if (this.#turnEnded !== undefined && (this.#worked || stopReason !== undefined)) {
        const turnEnded = this.#turnEnded;
        this.#turnEnded = undefined;
        turnEnded(turnEnd(message.update, stopReason));
      }
      return;
    }
    const { update } = message;
    if (
      update.sessionUpdate === "state_update" &&
      "state" in update &&
      (update.state === "running" || update.state === "requires_action")
    ) {
      this.#worked = true;
    }
  }
}

/** How a turn ended: its stop reason; `error` says what the agent's error was. */
function turnEnd(update: unknown, stopReason: string | undefined): TurnEnd {
  if (stopReason !== "error") {
    return { stopReason };
  }
  const error: unknown = Reflect.get(Object(update), "error");
  const detail: unknown = Reflect.get(Object(error), "message");
  return {
    stopReason,
    error: `The agent stopped with an error${typeof detail === "string" ? `: ${cutText(detail, MAX_QUOTED_CHARS)}` : ""}`,
  };
}
