import type { TerminalSessionUpdate, TerminalUpdateSender } from "./wire.js";

/**
 * The terminal updates on their way to the client: handed to `send` one after another, in the
 * order they were enqueued, with the base64 bytes still waiting counted (chunks and snapshots,
 * the two that can be large) so that the publisher can keep them under its backlog bound.
 */
export class UpdateQueue {
  private chain: Promise<void> = Promise.resolve();
  private waitingBytes = 0;

  constructor(
    private readonly send: TerminalUpdateSender,
    /** Told of a failed send; sends are never retried. */
    private readonly report: (what: string, error: unknown) => void,
  ) {}

  /** Base64 bytes enqueued and not yet handed to `send`. */
  get queuedBytes(): number {
    return this.waitingBytes;
  }

  enqueue(sessionId: string, update: TerminalSessionUpdate): void {
    // Counted as sent on the wire (base64): chunks and snapshots, the two that can be large.
    const size =
      update.sessionUpdate === "terminal_output_chunk"
        ? update.data.length
        : (update.output?.data.length ?? 0);
    this.waitingBytes += size;
    this.chain = this.chain
      .then(() => this.send(sessionId, update))
      .catch((error: unknown) => this.report(`sending ${update.sessionUpdate}`, error))
      .finally(() => (this.waitingBytes -= size));
  }

  /** Resolves once every update enqueued so far has been handed to `send`. */
  settled(): Promise<void> {
    return this.chain;
  }
}
