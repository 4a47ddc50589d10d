import { RequestError } from "@agentclientprotocol/sdk";
import { DEFAULT_PTY_SIZE } from "acp-terminal";
import type { RunEvent, RunSnapshot } from "../model/run-events.js";
import { isFinished } from "../model/run-record.js";
import type { ProcessManager } from "../runs/manager/manager.js";
import { utf8Pieces, utf8Tail } from "./utf8-cut.js";
import type { TerminalSessionUpdate, TerminalUpdate, TerminalUpdateSender } from "./wire.js";

export interface TerminalPublisherOptions {
  /** Sends one `session/update` to the client. */
  send: TerminalUpdateSender;
  /** Which runs to publish (e.g. only the sessions of v2 connections). Default: every run. */
  publishes?: (run: RunSnapshot) => boolean;
  /** Largest `terminal_output_chunk`, in output bytes before base64. Default 16 KiB (64..1 MiB). */
  maxChunkBytes?: number;
  /** Output is held this long so that bursts go out as one chunk. Default 25 ms (0..1000). */
  coalesceMs?: number;
  /**
   * Base64 bytes waiting to be sent (the client reads slower than commands write). Past this, a
   * terminal's pending chunks are dropped and one authoritative `output` snapshot replaces them.
   * Default 1 MiB.
   */
  maxBacklogBytes?: number;
  /** Largest `output` snapshot (replay, catching up), in bytes: the tail of the run's retained output. Default 64 KiB. */
  snapshotBytes?: number;
  /** Terminals remembered for replay and cancel; the oldest exited ones are forgotten past it. Default 1000. */
  maxTerminals?: number;
  /** Where a failed send is reported (default: stderr). Sends are never retried. */
  onError?: (what: string, error: unknown) => void;
}

/** One published run: the v2 terminal id is the run id. */
interface Published {
  /** As announced, then as last resized. */
  run: RunSnapshot;
  exited: RunSnapshot | null;
  pending: Buffer[];
  pendingBytes: number;
  timer: NodeJS.Timeout | null;
  /** A backlog dropped this terminal's chunks: the next flush sends a snapshot instead. */
  resync: boolean;
}

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
  private readonly terminals = new Map<string, Published>();
  private readonly unsubscribe: () => void;
  private chain: Promise<void> = Promise.resolve();
  private queuedBytes = 0;
  private readonly maxChunkBytes: number;
  private readonly coalesceMs: number;
  private readonly maxBacklogBytes: number;
  private readonly snapshotBytes: number;
  private readonly maxTerminals: number;

  constructor(
    private readonly manager: ProcessManager,
    private readonly options: TerminalPublisherOptions,
  ) {
    this.maxChunkBytes = clampOption(options.maxChunkBytes, 16 * 1024, 64, 1024 * 1024);
    this.coalesceMs = clampOption(options.coalesceMs, 25, 0, 1000);
    this.maxBacklogBytes = clampOption(
      options.maxBacklogBytes,
      1024 * 1024,
      1024,
      64 * 1024 * 1024,
    );
    this.snapshotBytes = clampOption(options.snapshotBytes, 64 * 1024, 64, 16 * 1024 * 1024);
    this.maxTerminals = clampOption(options.maxTerminals, 1000, 1, 100_000);
    this.unsubscribe = manager.subscribe((event) => this.onEvent(event));
  }

  /**
   * Announces a running run now (idempotent) and resolves with its terminal id once the
   * announcement is handed to the client: embed the id in a tool call after this, from `onStart`.
   */
  async announce(run: RunSnapshot): Promise<string> {
    if (!this.terminals.has(run.id)) {
      this.add(run);
    }
    await this.chain;
    return run.id;
  }

  /** Whether `terminalId` is a terminal published in `sessionId`. */
  has(sessionId: string, terminalId: string): boolean {
    return this.terminals.get(terminalId)?.run.sessionId === sessionId;
  }

  /**
   * `terminal/cancel`: starts the run's kill (the manager's kill sequence: SIGTERM to the process
   * group, SIGKILL after its grace) and resolves once it is accepted, before the process is gone;
   * the `terminal_update` with `exitStatus` confirms it. `-32602` for a terminal that is unknown
   * (or another session's), or has already exited.
   */
  cancel(sessionId: string, terminalId: string): Promise<void> {
    const published = this.terminals.get(terminalId);
    if (published === undefined || published.run.sessionId !== sessionId) {
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
    for (const published of [...this.terminals.values()]) {
      if (published.run.sessionId !== sessionId) {
        continue;
      }
      // Within the backlog bound like live output: a client that does not read holds replays
      // (however many it asks for) here, not their snapshots in the queue.
      while (this.queuedBytes > this.maxBacklogBytes) {
        await this.chain;
      }
      const update = this.fullState(published);
      if (update === null) {
        continue;
      }
      this.enqueue(sessionId, update);
      count++;
    }
    await this.chain;
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
    const list: { type: "terminal"; terminalId: string }[] = [];
    for (const [terminalId, published] of this.terminals) {
      if (published.run.sessionId !== sessionId || published.exited !== null) {
        continue;
      }
      if (isBackground(published.run)) {
        list.push({ type: "terminal", terminalId });
      }
    }
    return list;
  }

  /**
   * Resolves once every update enqueued so far has been handed to `send` (pending output stays
   * pending). Send other session updates after it to keep them in order with the terminal's, e.g.
   * a tool call that embeds a terminal after the terminal's announcement.
   */
  settled(): Promise<void> {
    return this.chain;
  }

  /** As `settled`, after sending every terminal's pending output now. */
  flushed(): Promise<void> {
    for (const published of this.terminals.values()) {
      this.flush(published);
    }
    return this.chain;
  }

  /** Stops publishing (pending output is dropped); idempotent. */
  dispose(): void {
    this.unsubscribe();
    for (const published of this.terminals.values()) {
      if (published.timer) {
        clearTimeout(published.timer);
      }
    }
  }

  private onEvent(event: RunEvent): void {
    if (event.type === "status" && event.run.status === "running") {
      if (!this.terminals.has(event.run.id)) {
        this.add(event.run);
      }
    } else if (event.type === "output" && event.item.kind === "output") {
      const published = this.terminals.get(event.runId);
      if (published === undefined || published.exited !== null) {
        return;
      }
      const bytes = Buffer.from(event.item.text, "utf8");
      published.pending.push(bytes);
      published.pendingBytes += bytes.length;
      if (published.pendingBytes >= this.maxChunkBytes) {
        this.flush(published);
      } else {
        published.timer ??= setTimeout(() => this.flush(published), this.coalesceMs);
      }
    } else if (event.type === "resize") {
      const published = this.terminals.get(event.run.id);
      if (published === undefined || published.exited !== null || !event.run.pty) {
        return;
      }
      published.run = event.run;
      // Output written before the resize was drawn at the old size: send it first.
      this.flush(published);
      this.enqueue(event.run.sessionId, {
        sessionUpdate: "terminal_update",
        terminalId: event.run.id,
        size: sizeOf(event.run),
      });
    } else if (event.type === "exit") {
      const published = this.terminals.get(event.run.id);
      if (published === undefined || published.exited !== null) {
        return;
      }
      this.flush(published, true);
      published.exited = event.run;
      // exitStatus exactly once (the manager emits one exit per run); cancel is no longer offered.
      this.enqueue(published.run.sessionId, {
        sessionUpdate: "terminal_update",
        terminalId: published.run.id,
        exitStatus: exitStatusOf(event.run),
        capabilities: {},
      });
    }
  }

  private add(run: RunSnapshot): void {
    if (this.options.publishes && !this.options.publishes(run)) {
      return;
    }
    this.forgetOldest();
    this.terminals.set(run.id, {
      run,
      exited: null,
      pending: [],
      pendingBytes: 0,
      timer: null,
      resync: false,
    });
    this.enqueue(run.sessionId, {
      sessionUpdate: "terminal_update",
      terminalId: run.id,
      command: displayCommand(run),
      ...(run.cwd !== null ? { cwd: run.cwd } : {}),
      ...(run.pty ? { size: sizeOf(run) } : {}),
      capabilities: { cancel: {} },
    });
  }

  /**
   * Sends a terminal's pending output: chunks of at most maxChunkBytes, or a snapshot after a
   * backlog (`final`: the last flush before the exit, which sends that snapshot whatever the backlog).
   */
  private flush(published: Published, final = false): void {
    if (published.timer) {
      clearTimeout(published.timer);
      published.timer = null;
    }
    if (published.pendingBytes === 0 && !published.resync) {
      return;
    }
    const bytes = Buffer.concat(published.pending, published.pendingBytes);
    published.pending = [];
    published.pendingBytes = 0;
    const sessionId = published.run.sessionId;
    const wireBytes = Math.ceil(bytes.length / 3) * 4; // base64
    if (published.resync || this.queuedBytes + wireBytes > this.maxBacklogBytes) {
      // The client is behind: what is waiting is replaced by one authoritative snapshot, sent
      // once the backlog has room (until then the terminal keeps only this flag).
      published.resync = !final && this.queuedBytes > this.maxBacklogBytes;
      if (published.resync) {
        return;
      }
      const snapshot = this.snapshotOf(published.run.id);
      if (snapshot === null) {
        return;
      }
      this.enqueue(sessionId, {
        sessionUpdate: "terminal_update",
        terminalId: published.run.id,
        output: { data: snapshot.toString("base64") },
      });
      return;
    }
    for (const piece of utf8Pieces(bytes, this.maxChunkBytes)) {
      this.enqueue(sessionId, {
        sessionUpdate: "terminal_output_chunk",
        terminalId: published.run.id,
        data: Buffer.from(piece).toString("base64"),
      });
    }
  }

  /** The whole state of a terminal, for replay; null once the manager has forgotten the run. */
  private fullState(published: Published): TerminalUpdate | null {
    const snapshot = this.snapshotOf(published.run.id);
    if (snapshot === null) {
      return null;
    }
    // The snapshot holds the pending output: sending it again as chunks would duplicate it.
    if (published.timer) {
      clearTimeout(published.timer);
    }
    published.timer = null;
    published.pending = [];
    published.pendingBytes = 0;
    published.resync = false;
    const run = published.run;
    return {
      sessionUpdate: "terminal_update",
      terminalId: run.id,
      command: displayCommand(run),
      cwd: run.cwd,
      size: run.pty ? sizeOf(run) : null,
      output: { data: snapshot.toString("base64") },
      exitStatus: published.exited === null ? null : exitStatusOf(published.exited),
      capabilities: published.exited === null ? { cancel: {} } : {},
    };
  }

  /** The tail of the run's retained output (the manager's store), at most snapshotBytes. */
  private snapshotOf(runId: string): Buffer | null {
    try {
      const { text } = this.manager.tail(runId, { maxChars: this.snapshotBytes });
      return Buffer.from(utf8Tail(Buffer.from(text, "utf8"), this.snapshotBytes));
    } catch {
      // Expired (TTL) or removed: the run, its output and its terminal are gone.
      this.terminals.delete(runId);
      return null;
    }
  }

  private isOver(runId: string): boolean {
    try {
      return isFinished(this.manager.get(runId).status);
    } catch {
      return true; // the manager no longer knows it
    }
  }

  private enqueue(sessionId: string, update: TerminalSessionUpdate): void {
    // Counted as sent on the wire (base64): chunks and snapshots, the two that can be large.
    const size =
      update.sessionUpdate === "terminal_output_chunk"
        ? update.data.length
        : (update.output?.data.length ?? 0);
    this.queuedBytes += size;
    this.chain = this.chain
      .then(() => this.options.send(sessionId, update))
      .catch((error: unknown) => this.report(`sending ${update.sessionUpdate}`, error))
      .finally(() => (this.queuedBytes -= size));
  }

  /** Bounded: past maxTerminals, the oldest exited terminal is forgotten (a live one never is). */
  private forgetOldest(): void {
    if (this.terminals.size < this.maxTerminals) {
      return;
    }
    for (const [terminalId, published] of this.terminals) {
      if (published.exited !== null) {
        this.terminals.delete(terminalId);
        return;
      }
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

function exitStatusOf(run: RunSnapshot): { exitCode: number | null; signal: string | null } {
  return { exitCode: run.exitCode, signal: run.signal };
}

function displayCommand(run: RunSnapshot): string {
  return run.args === null ? run.command : [run.command, ...run.args].join(" ");
}

/** A PTY run's size as the run keeps it (as started, then as resized); a stored one that is not a size reads as the default. */
function sizeOf(run: RunSnapshot): { cols: number; rows: number } {
  const size: unknown = run.ptySize;
  if (
    typeof size === "object" &&
    size !== null &&
    "cols" in size &&
    "rows" in size &&
    Number.isInteger(size.cols) &&
    Number.isInteger(size.rows) &&
    Number(size.cols) > 0 &&
    Number(size.rows) > 0
  ) {
    return { cols: Number(size.cols), rows: Number(size.rows) };
  }
  return { ...DEFAULT_PTY_SIZE };
}

function clampOption(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || !Number.isFinite(value)) {
    return fallback;
  }
  return Math.min(max, Math.max(min, Math.floor(value)));
}
