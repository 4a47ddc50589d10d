import { RequestError } from "@agentclientprotocol/sdk/experimental/v2/unstable";

/** Prompts held behind a running turn per session: each keeps its content until it runs. */
export const MAX_HELD_PROMPTS = 16;

/**
 * A v2 session's foreground: one turn at a time. A prompt sent while a turn runs is held (at most
 * MAX_HELD_PROMPTS), then inserted in order. `cancel()` (session/cancel) drops the prompts held
 * from before it; `close()` (session/close) drops every held prompt.
 */
export class ForegroundTurns {
  /** Whether a turn runs now (for `state_update`); set by the turn itself once its prompt is inserted. */
  running = false;
  private queue: Promise<void> = Promise.resolve();
  /** Bumped by `cancel()`: a prompt held from before it is answered -32800, not run. */
  private generation = 0;
  private closed = false;
  /** Prompts waiting behind the running turn. */
  private held = 0;

  /**
   * Holds `turn` until the turns before it have ended, then runs it. Resolves once the turn has
   * called `insert` (its prompt is in the conversation) or has ended; rejects with -32800 when the
   * prompt is cancelled or the session closed before it ran, and throws -32600 when
   * MAX_HELD_PROMPTS are already held. `turn` must not reject: the next turn waits on it.
   */
  hold(turn: (insert: () => void) => Promise<void>): Promise<void> {
    if (this.held >= MAX_HELD_PROMPTS) {
      throw RequestError.invalidRequest(
        undefined,
        `${MAX_HELD_PROMPTS} prompts are already held behind the running turn; send this one after one of them is inserted (its messageId answered)`,
      );
    }
    this.held++;
    const generation = this.generation;
    return new Promise<void>((insert, refuse) => {
      this.queue = this.queue.then(async () => {
        this.held--;
        if (this.closed || this.generation !== generation) {
          refuse(
            RequestError.requestCancelled(undefined, "the prompt was held and then cancelled"),
          );
          return;
        }
        try {
          await turn(insert);
        } finally {
          insert();
        }
      });
    });
  }

  cancel(): void {
    this.generation++;
  }

  close(): void {
    this.closed = true;
  }

  /** Settles once the running turn and every held prompt have ended. */
  drained(): Promise<void> {
    return this.queue;
  }
}
