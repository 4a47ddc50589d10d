import { RequestError } from "@agentclientprotocol/sdk";
import { DEFAULT_PTY_SIZE } from "acp-terminal";
import type { RunEvent, RunSnapshot } from "../model/run-events.js";
import { isFinished } from "../model/run-record.js";
import type { ProcessManager } from "../runs/manager/manager.js";
import { PublishedTerminals, type Published } from "./published-terminals.js";
import {
  publisherLimits,
  type PublisherLimits,
  type TerminalPublisherOptions,
} from "./publisher-options.js";
import {
  announcement,
  exitUpdate,
  fullState,
  inputUpdate,
  outputChunks,
  sizeUpdate,
  snapshotUpdate,
} from "./terminal-updates.js";
import { UpdateQueue } from "./update-queue.js";
import { utf8Tail } from "./utf8-cut.js";
import type { TerminalUpdate } from "./wire.js";

export type { TerminalPublisherOptions };

/**
 * A PTY run is announced at acp-terminal's `DEFAULT_PTY_SIZE` when it keeps none. A run keeps the
 * size it started at (`pty: {cols, rows}`) and each resize's, and a resize is published as a
 * `terminal_update` with the new `size`.
 */
export { DEFAULT_PTY_SIZE };

/**
 * Publishes a ProcessManager's runs as ACP v2 agent-owned terminals: a `terminal_update`
 * announcing each run (command, cwd, size for a PTY, `capabilities.cancel`), coalesced and bounded
 * `terminal_output_chunk`s of its output, one `terminal_update` with `exitStatus` (which also
 * stops advertising cancel), snapshots for replay, and `terminal/cancel`. Works over any
 * provider: it reads the manager's events, not the terminal.
 */
export class TerminalPublisher {
  private readonly terminals: PublishedTerminals;
  private readonly unsubscribe: () => void;
  private readonly queue: UpdateQueue;
  private readonly limits: PublisherLimits;

  constructor(
    private readonly manager: ProcessManager,
    private readonly options: TerminalPublisherOptions,
  ) {
    this.limits = publisherLimits(options);
    this.terminals = new PublishedTerminals(this.limits.maxTerminals);
    this.queue = new UpdateQueue(options.send, (what, error) => this.report(what, error));
    this.unsubscribe = manager.subscribe((event) => this.onEvent(event));
  }

  /**
   * Announces a running run now (idempotent) and resolves with its terminal id once the
   * announcement is handed to the client: embed the id in a tool call after this, from `onStart`.
   */
  async announce(run: RunSnapshot): Promise<string> {
    if (this.terminals.get(run.id) === undefined) {
      this.add(run);
    }
    await this.queue.settled();
    return run.id;
  }

  /** Whether `terminalId` is a terminal published in `sessionId`. */
  has(sessionId: string, terminalId: string): boolean {
    return this.terminals.inSession(sessionId, terminalId) !== undefined;
  }

  /**
   * `terminal/cancel`: starts the run's kill (the manager's kill sequence: SIGTERM to the process
   * group, SIGKILL after its grace) and resolves once it is accepted, before the process is gone;
   * the `terminal_update` with `exitStatus` confirms it. `-32602` for a terminal that is unknown
   * (or another session's), or has already exited.
   */
  cancel(sessionId: string, terminalId: string): Promise<void> {
    const published = this.terminals.inSession(sessionId, terminalId);
    if (published === undefined) {
      // Quoted cut, in the data too: the answer to a huge id stays small.
      const quoted = terminalId.slice(0, 100);
      throw RequestError.invalidParams(
        { terminalId: quoted },
        `unknown terminal ${JSON.stringify(quoted)} in this session`,
      );
    }
    if (published.exited !== null || this.isOver(terminalId)) {
      throw RequestError.invalidParams(
        { terminalId },
        `terminal ${terminalId} has already exited: there is nothing to cancel`,
      );
    }
    void this.manager
      .kill(terminalId, { sessionId })
      .catch((error: unknown) => this.report(`cancelling terminal ${terminalId}`, error));
    return Promise.resolve();
  }

  /**
   * Replay (e.g. on `session/resume`): one `terminal_update` per terminal of the session with
   * everything a new client needs (command, cwd, size, the bounded `output` snapshot, `exitStatus`
   * or null, capabilities). Resolves when they are handed to the client; returns their count.
   * Replays wait while maxBacklogBytes is exceeded, so concurrent ones stay within it.
   */
  async replay(sessionId: string): Promise<number> {
    let count = 0;
    for (const published of this.terminals.ofSession(sessionId)) {
      // Within the backlog bound like live output: a client that does not read holds replays
      // (however many it asks for) here, not their snapshots in the queue.
      while (this.queue.queuedBytes > this.limits.maxBacklogBytes) {
        await this.queue.settled();
      }
      const update = this.fullState(published);
      if (update === null) {
        continue;
      }
      this.queue.enqueue(sessionId, update);
      count++;
    }
    await this.queue.settled();
    return count;
  }

  /**
   * The session's live terminals of background runs, as the v2 `background` list of a
   * `state_update` (`{type: "terminal", terminalId}`); `isBackground` picks them (default: the
   * run's `background` label is `"true"`).
   */
  background(
    sessionId: string,
    isBackground: (run: RunSnapshot) => boolean = (run) => run.labels["background"] === "true",
  ): { type: "terminal"; terminalId: string }[] {
    return this.terminals
      .ofSession(sessionId)
      .filter((published) => published.exited === null && isBackground(published.run))
      .map((published) => ({ type: "terminal", terminalId: published.run.id }));
  }

  /**
   * Resolves once every update enqueued so far has been handed to `send` (pending output stays
   * pending). Send other session updates after it to keep them in order with the terminal's, e.g.
   * a tool call that embeds a terminal after the terminal's announcement.
   */
  settled(): Promise<void> {
    return this.queue.settled();
  }

  /** As `settled`, after sending every terminal's pending output now. */
  flushed(): Promise<void> {
    for (const published of this.terminals.all()) {
      this.flush(published);
    }
    return this.queue.settled();
  }

  /** Stops publishing (pending output is dropped); idempotent. */
  dispose(): void {
    this.unsubscribe();
    for (const published of this.terminals.all()) {
      published.output.stopTimer();
    }
  }

  private onEvent(event: RunEvent): void {
    if (event.type === "status" && event.run.status === "running") {
      if (this.terminals.get(event.run.id) === undefined) {
        this.add(event.run);
      }
    } else if (event.type === "output" && event.item.kind === "output") {
      const published = this.terminals.get(event.runId);
      if (published === undefined || published.exited !== null) {
        return;
      }
      published.output.add(Buffer.from(event.item.text, "utf8"));
      if (published.output.bytes >= this.limits.maxChunkBytes) {
        this.flush(published);
      } else {
        published.output.flushAfter(this.limits.coalesceMs, () => this.flush(published));
      }
    } else if (event.type === "resize") {
      const published = this.terminals.get(event.run.id);
      if (published === undefined || published.exited !== null || !event.run.pty) {
        return;
      }
      published.run = event.run;
      // Output written before the resize was drawn at the old size: send it first.
      this.flush(published);
      this.queue.enqueue(event.run.sessionId, sizeUpdate(event.run));
    } else if (event.type === "input") {
      const published = this.terminals.get(event.run.id);
      if (published !== undefined && published.exited === null) {
        // After the output it follows (the prompt), as an update of the terminal's _meta.
        this.flush(published);
        this.queue.enqueue(event.run.sessionId, inputUpdate(event.run));
      }
    } else if (event.type === "exit") {
      const published = this.terminals.get(event.run.id);
      if (published === undefined || published.exited !== null) {
        return;
      }
      this.flush(published, true);
      published.exited = event.run;
      // exitStatus exactly once (the manager emits one exit per run); cancel is no longer offered.
      this.queue.enqueue(published.run.sessionId, exitUpdate(event.run));
    }
  }

  private add(run: RunSnapshot): void {
    if (this.options.publishes && !this.options.publishes(run)) {
      return;
    }
    this.terminals.add(run);
    this.queue.enqueue(run.sessionId, announcement(run));
  }

  /**
   * Sends a terminal's pending output: chunks of at most maxChunkBytes, or a snapshot after a
   * backlog (`final`: the last flush before the exit, which sends that snapshot whatever the backlog).
   */
  private flush(published: Published, final = false): void {
    const { output, run } = published;
    output.stopTimer();
    if (output.bytes === 0 && !output.resync) {
      return;
    }
    const bytes = output.take();
    const { queuedBytes } = this.queue;
    const { maxBacklogBytes } = this.limits;
    const wireBytes = Math.ceil(bytes.length / 3) * 4; // base64
    if (output.resync || queuedBytes + wireBytes > maxBacklogBytes) {
      // The client is behind: what is waiting is replaced by one authoritative snapshot, sent
      // once the backlog has room (until then the terminal keeps only this flag).
      output.resync = !final && queuedBytes > maxBacklogBytes;
      const snapshot = output.resync ? null : this.snapshotOf(run.id);
      if (snapshot !== null) {
        this.queue.enqueue(run.sessionId, snapshotUpdate(run.id, snapshot));
      }
      return;
    }
    for (const chunk of outputChunks(run.id, bytes, this.limits.maxChunkBytes)) {
      this.queue.enqueue(run.sessionId, chunk);
    }
  }

  /** The whole state of a terminal, for replay; null once the manager has forgotten the run. */
  private fullState(published: Published): TerminalUpdate | null {
    const snapshot = this.snapshotOf(published.run.id);
    if (snapshot === null) {
      return null;
    }
    // The snapshot holds the pending output: sending it again as chunks would duplicate it.
    published.output.discard();
    const { run, exited } = published;
    return fullState(run, exited, exited === null ? this.current(run) : run, snapshot);
  }

  /** The tail of the run's retained output (the manager's store), at most snapshotBytes. */
  private snapshotOf(runId: string): Buffer | null {
    try {
      const { snapshotBytes } = this.limits;
      const { text } = this.manager.tail(runId, { maxChars: snapshotBytes });
      return Buffer.from(utf8Tail(Buffer.from(text, "utf8"), snapshotBytes));
    } catch {
      // Expired (TTL) or removed: the run, its output and its terminal are gone.
      this.terminals.forget(runId);
      return null;
    }
  }

  /** The run as the manager has it now (waiting for input or not); the published one when forgotten. */
  private current(run: RunSnapshot): RunSnapshot {
    try {
      return this.manager.get(run.id);
    } catch {
      return run;
    }
  }

  private isOver(runId: string): boolean {
    try {
      return isFinished(this.manager.get(runId).status);
    } catch {
      return true; // the manager no longer knows it
    }
  }

  private report(what: string, error: unknown): void {
    if (this.options.onError) {
      this.options.onError(what, error);
    } else {
      console.error(`acp-process: ${what} failed:`, error);
    }
  }
}
