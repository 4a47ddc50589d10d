// One file over 300 lines because ProcessManager is acp-process's public API: each of its 28
// methods keeps its documentation here and hands the work to a module beside it (admission,
// run-views, input, stop-run, registry, recovery, wait-run).
import type { KeyInput } from "acp-terminal/keys";
import { repeatOnClock, systemClock, type Clock } from "../../base/clock.js";
import { clamp, resolveLimits, YIELD_MS, type ResolvedLimits } from "../../base/config.js";
import { ProcessError } from "../../base/errors.js";
import type { ResourceUsage } from "../../providers/proc-usage.js";
import type { ProviderCapabilities, TerminalProvider } from "../../providers/types.js";
import { MemoryRunStore } from "../../store/memory.js";
import type { RunStore } from "../../store/types.js";
import { snapshotOf } from "../run/describe.js";
import { RunAdmission } from "./admission.js";
import { RunEventHub } from "./event-hub.js";
import {
  DEFAULT_TUNING,
  type KillOptions,
  type ListRunsQuery,
  type ProcessManagerOptions,
  type LineQuery,
  type ReadQuery,
  type SessionScope,
  type StartRunOptions,
  type TailQuery,
  type WriteOptions,
} from "./options.js";
import { encodeKeyInput, resizeRun, writeInput } from "./input.js";
import { isFinished } from "../../model/run-record.js";
import { type RunEventSink, type RunSnapshot, type WatcherSpec } from "../../model/run-events.js";
import type { LineView } from "../views/views.js";
import { archiveFor, type OutputArchive } from "../spill/output-archive.js";
import { waitForRun, type WaitOptions } from "./wait-run.js";
import type { ReadResult } from "../views/read-page.js";
import { RunRegistry } from "./registry.js";
import { recoverRuns, type RecoveryPolicy, type RecoveryReport } from "./recovery.js";
import { RunViews, type ByteQuery, type OutputBytes, type OutputText } from "./run-views.js";
import { checkSignalName, stopRun } from "./stop-run.js";

/**
 * The run registry. Starts commands through a TerminalProvider, tracks their status and output as
 * numbered items, enforces timeouts and concurrency caps, notifies exits exactly once, and expires
 * finished runs after a TTL. Session-scoped: pass `sessionId` to any accessor to forbid other
 * sessions' runs.
 */
export class ProcessManager {
  readonly limits: ResolvedLimits;
  readonly store: RunStore;
  /** Output past the store's window, on disk under a quota (undefined with `outputSpill: false`). */
  readonly archive: OutputArchive | undefined;
  private readonly clock: Clock;
  private readonly registry: RunRegistry;
  private readonly admission: RunAdmission;
  private readonly views: RunViews;
  private readonly events = new RunEventHub();
  private readonly stopSweeper: () => void;
  private readonly attachments = new Map<symbol, unknown>();
  /** Set by the first `dispose()`; every later caller waits for the same disposal. */
  private disposal: Promise<void> | null = null;

  constructor(private readonly options: ProcessManagerOptions) {
    if (!options.provider && !options.providerFor) {
      throw ProcessError.invalidParams(
        "provider",
        "a TerminalProvider or a providerFor(sessionId) function",
        undefined,
      );
    }
    this.limits = resolveLimits(options, options.env);
    this.clock = options.clock ?? systemClock;
    this.store =
      options.store ?? new MemoryRunStore({ maxCharsPerRun: this.limits.maxOutputChars });
    this.archive = archiveFor(options.outputSpill, this.store, () => this.registry.all());
    this.registry = new RunRegistry(this.store, options.maxRuns ?? 500, (runId) =>
      this.archive?.delete(runId),
    );
    this.admission = new RunAdmission({
      runs: {
        store: this.store,
        clock: this.clock,
        emit: (e) => this.events.emit(e),
        tuning: { ...DEFAULT_TUNING, ...options.tuning },
        archive: this.archive,
      },
      registry: this.registry,
      providerFor: (sessionId) => this.providerFor(sessionId),
      defaultTimeoutMs: options.defaultTimeoutMs ?? 30 * 60_000,
      limits: options.limits,
    });
    this.views = new RunViews(
      this.registry,
      this.store,
      this.archive,
      this.clock,
      this.limits.maxOutputChars,
    );
    if (options.onEvent) {
      this.events.add(options.onEvent);
    }
    const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.stopSweeper =
      sweepIntervalMs > 0
        ? repeatOnClock(this.clock, sweepIntervalMs, () => this.sweep())
        : () => {};
  }

  /**
   * Per-manager state of a layer built on top (e.g. the tool surfaces' poll cursors), created on
   * first use and living as long as this manager: no module-level registries.
   */
  attached<T>(key: symbol, create: (manager: ProcessManager) => T): T {
    if (!this.attachments.has(key)) {
      this.attachments.set(key, create(this));
    }
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- each key's value is made by the create() passed with that key (attached() is the only writer)
    return this.attachments.get(key) as T;
  }

  /** Adds an event listener; returns its remover. */
  subscribe(listener: RunEventSink): () => void {
    return this.events.add(listener);
  }

  /** Starts (or queues) a run; resolves once it is running, queued, or failed to start. */
  async start(request: StartRunOptions): Promise<RunSnapshot> {
    if (this.disposal) {
      throw ProcessError.disposed();
    }
    return this.admission.start(request);
  }

  /**
   * Foreground run with auto-background: waits up to `yieldMs` (default the manager's, clamped to
   * 10..120000) for the run to finish, and no longer once it waits for input. `yielded: true`
   * means it keeps running in the background.
   */
  async run(
    request: StartRunOptions & { yieldMs?: number },
  ): Promise<{ run: RunSnapshot; yielded: boolean }> {
    const started = await this.start(request);
    // Clamped like the manager's default (10..120000 ms, as in the exec tool design).
    const yieldMs = clamp(request.yieldMs ?? this.limits.yieldMs, YIELD_MS);
    // A command that waits for input yields at once: nobody would answer it in the foreground.
    const run = await this.wait(started.id, { timeoutMs: yieldMs, untilInput: true });
    return { run, yielded: !isFinished(run.status) };
  }

  /**
   * Resolves when the run has finished (and its terminal is released), or after `timeoutMs`, or
   * when `signal` aborts, or (with `untilInput`) when it waits for input: then with the run as it is.
   */
  async wait(runId: string, options: WaitOptions = {}): Promise<RunSnapshot> {
    const run = this.registry.live(runId, options.sessionId);
    return run
      ? waitForRun(run, options, this.clock, (listener) => this.subscribe(listener))
      : this.get(runId, options);
  }

  get(runId: string, options: SessionScope = {}): RunSnapshot {
    return snapshotOf(this.registry.record(runId, options.sessionId), this.clock.now());
  }

  list(query: ListRunsQuery = {}): RunSnapshot[] {
    return this.registry.list(query).map((r) => snapshotOf(r, this.clock.now()));
  }

  /** Items from `sinceSeq` on; reads the client's output first so the answer is current. */
  read(runId: string, query: ReadQuery = {}): Promise<ReadResult> {
    return this.views.read(runId, query);
  }

  /** Lines by absolute offset/limit; omitted offset = the last `limit` lines. */
  lines(runId: string, query: LineQuery = {}): Promise<LineView & { run: RunSnapshot }> {
    return this.views.lines(runId, query);
  }

  /**
   * Output bytes `[offset, offset + limit)` by absolute offset, from the run's spill or its
   * retained items (see `readOutputRange`: a range that cannot be read is an error saying why).
   */
  bytes(runId: string, query: ByteQuery): Promise<OutputBytes> {
    return this.views.bytes(runId, query);
  }

  /** As `bytes`, cut at UTF-8 character boundaries and decoded. */
  wholeCharacterBytes(
    runId: string,
    query: Omit<ByteQuery, "wholeCharacters">,
  ): Promise<OutputText> {
    return this.views.wholeCharacterBytes(runId, query);
  }

  /** The last `maxChars` characters of output (default 2000), for status lines and snippets. */
  tail(runId: string, options: TailQuery = {}): { text: string; truncated: boolean } {
    return this.views.tail(runId, options);
  }

  /** Writes to a running run's stdin (see `StartRunOptions.stdin`). */
  async write(runId: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
    const run = this.registry.requireLive(runId, options.sessionId);
    await writeInput(run, data, options.eof ?? false);
  }

  /**
   * Named keys and text (`["q", "Enter"]`, `["C-c"]`, `[{text: "Enter"}]`) encoded by acp-terminal's
   * key table and written to stdin; `Enter` is `\r` in a PTY and `\n` on a pipe. Unknown-looking
   * names throw with the list of valid ones.
   */
  async sendKeys(
    runId: string,
    keys: readonly KeyInput[],
    options: SessionScope = {},
  ): Promise<void> {
    const run = this.registry.requireLive(runId, options.sessionId);
    await writeInput(run, encodeKeyInput(keys, { pty: run.record.pty }), false);
  }

  async resize(
    runId: string,
    cols: number,
    rows: number,
    options: SessionScope = {},
  ): Promise<void> {
    const run = this.registry.requireLive(runId, options.sessionId);
    await resizeRun(run, cols, rows);
    run.record.ptySize = { cols, rows };
    this.store.putRun(run.record);
    this.events.emit({ type: "resize", run: snapshotOf(run.record, this.clock.now()) });
  }

  /** Ends a run (see `Run.terminate`); a finished run is returned unchanged. */
  async kill(runId: string, options: KillOptions = {}): Promise<RunSnapshot> {
    return (await this.stop(runId, options)).run;
  }

  /**
   * As `kill`, with what was done: the signals delivered (`terminal/kill` = the provider's own
   * kill) and whether the run was still live when asked. With `escalate: false` a command that
   * ignores the signal is still running in the answer.
   */
  async stop(
    runId: string,
    options: KillOptions = {},
  ): Promise<{ run: RunSnapshot; wasLive: boolean; signalsSent: string[] }> {
    checkSignalName(options.signal);
    const run = this.registry.live(runId, options.sessionId);
    if (!run || run.isSettled) {
      return { run: this.get(runId, options), wasLive: false, signalsSent: [] };
    }
    const stopped = await stopRun(run, options);
    return { run: stopped.run, wasLive: true, signalsSent: stopped.signalsSent };
  }

  /**
   * CPU time and memory of a running command's process group, where the provider can measure them
   * (the local provider on Linux); otherwise `usage: null` and a note saying why.
   */
  resourceUsage(
    runId: string,
    options: SessionScope = {},
  ): Promise<{ usage: ResourceUsage | null; note?: string }> {
    return this.views.resourceUsage(runId, options.sessionId);
  }

  watch(runId: string, spec: WatcherSpec, options: SessionScope = {}): string {
    return this.registry.requireLive(runId, options.sessionId).log.watchers.add(spec);
  }

  unwatch(runId: string, watcherId: string, options: SessionScope = {}): boolean {
    return this.registry.requireLive(runId, options.sessionId).log.watchers.remove(watcherId);
  }

  /** Forgets a finished run and its output. A running run must be killed first. */
  remove(runId: string, options: SessionScope = {}): void {
    this.registry.deleteFinishedRun(runId, options.sessionId);
  }

  /** Removes every finished run (of a session, when given). Returns how many. */
  clear(options: SessionScope = {}): number {
    return this.registry.deleteFinished(
      (r) => options.sessionId === undefined || r.sessionId === options.sessionId,
    );
  }

  /** Removes finished runs whose end is older than the TTL. Returns how many. */
  sweep(): number {
    const expiredBefore = this.clock.now() - this.limits.ttlMs;
    return this.registry.deleteFinished((r) => (r.endedAtMs ?? r.createdAtMs) <= expiredBefore);
  }

  /**
   * Start-up recovery over a persistent store (see `RecoveryPolicy`). Call once, before new runs.
   * With `{onRunning: "requeue"}` interrupted runs start again under their own ids.
   */
  async recover(policy: RecoveryPolicy = { onRunning: "mark_lost" }): Promise<RecoveryReport> {
    return recoverRuns(this.store, policy, {
      now: () => this.clock.now(),
      emit: (event) => this.events.emit(event),
      claim: (record) => {
        if (this.disposal) {
          throw ProcessError.disposed();
        }
        return this.admission.claim(record);
      },
      isLive: (runId) => this.registry.live(runId, undefined) !== undefined,
    });
  }

  /** Kills every live run, releases their terminals, flushes the store. Idempotent. */
  dispose(): Promise<void> {
    // Marked disposed before any run is touched: an event listener that calls start() while the
    // runs are ending is refused.
    this.disposal ??= Promise.resolve().then(() => this.disposeOnce());
    return this.disposal;
  }

  private async disposeOnce(): Promise<void> {
    this.stopSweeper();
    await Promise.all(this.registry.liveRuns().map((run) => run.terminate("dispose")));
    this.store.flush();
    this.archive?.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  /** Reads the client's output of a running run now, so views (tail, get) are current. */
  refresh(runId: string, sessionId?: string): Promise<void> {
    return this.views.refresh(runId, sessionId);
  }

  /** What the provider of a session can do (`kind`, `capabilities`), so a layer can refuse before starting anything. */
  providerInfo(sessionId: string): { kind: string; capabilities: ProviderCapabilities } {
    const provider = this.providerFor(sessionId);
    return { kind: provider.kind, capabilities: provider.capabilities };
  }

  private providerFor(sessionId: string): TerminalProvider {
    return this.options.provider ?? this.options.providerFor!(sessionId);
  }
}
