import type { KeyInput } from "acp-terminal/keys";
import { SUPPORTED_SIGNALS } from "acp-terminal/protocol";
import { repeatOnClock, systemClock, type Clock } from "../../clock.js";
import { clamp, resolveLimits, YIELD_MS, type ResolvedLimits } from "../../config.js";
import { ProcessError } from "../../errors.js";
import type { ResourceUsage } from "../../providers/proc-usage.js";
import type { ProviderCapabilities, TerminalProvider } from "../../providers/types.js";
import { MemoryRunStore } from "../../store/memory.js";
import type { RunStore } from "../../store/types.js";
import { snapshotOf } from "../run/describe.js";
import { RunEventHub } from "./event-hub.js";
import {
  DEFAULT_TUNING,
  type KillOptions,
  type ListRunsQuery,
  type ProcessManagerOptions,
  type ReadQuery,
  type StartRunOptions,
} from "./options.js";
import { Run, type RunContext, type RunTuning } from "../run/run.js";
import { encodeKeyInput, resizeRun, writeInput } from "./input.js";
import { Scheduler } from "./scheduler.js";
import { isFinished, type RunRecord } from "../../model/run-record.js";
import { type RunEventSink, type RunSnapshot, type WatcherSpec } from "../../model/run-events.js";
import { lineView, storeTail, type LineView } from "../views/views.js";
import { runUsage } from "../views/usage.js";
import { readOutputRange } from "../views/byte-range.js";
import { archiveFor, type OutputArchive } from "../spill/output-archive.js";
import { waitForRun, type WaitOptions } from "./wait-run.js";
import { readPage, type ReadResult } from "../views/read-page.js";
import { RunRegistry } from "./registry.js";
import { recoverRuns, type RecoveryPolicy, type RecoveryReport } from "./recovery.js";
import { newRecord, validateStart } from "./records.js";
import { hasResourceLimits, validateResourceLimits } from "../run/resource-limits.js";

/** The signal names a run can be sent, as strings to look a requested name up in. */
const SIGNAL_NAMES: readonly string[] = SUPPORTED_SIGNALS;

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
  private readonly tuning: RunTuning;
  private readonly registry: RunRegistry;
  private readonly scheduler: Scheduler;
  private readonly events = new RunEventHub();
  private readonly defaultTimeoutMs: number;
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
    this.tuning = { ...DEFAULT_TUNING, ...options.tuning };
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 30 * 60_000;
    this.archive = archiveFor(options.outputSpill, this.store, () => this.registry.all());
    this.registry = new RunRegistry(this.store, options.maxRuns ?? 500, (runId) =>
      this.archive?.delete(runId),
    );
    this.scheduler = new Scheduler({
      maxConcurrentRuns: 16,
      maxConcurrentPerSession: 16,
      maxQueuedRuns: 64,
      ...options.limits,
    });
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
    validateStart(request);
    const provider = this.providerFor(request.sessionId);
    if (request.pty && !provider.capabilities.pty) {
      throw ProcessError.unsupported(
        "A PTY",
        provider.kind,
        "run without pty, or use a client that advertises the acp-terminal extension",
      );
    }
    if (hasResourceLimits(request.resourceLimits)) {
      validateResourceLimits(request.resourceLimits);
      if (provider.kind !== "local") {
        throw ProcessError.unsupported(
          "Resource limits (cpu_limit, memory_limit)",
          provider.kind,
          "the client runs the command in its own terminal and ACP has no way to ask it for limits; run without them, or use the local provider",
        );
      }
    }
    const record = newRecord(request, this.clock.now(), this.defaultTimeoutMs);
    if (hasResourceLimits(request.resourceLimits)) {
      record.resourceLimits = { ...request.resourceLimits };
    }
    record.stdin = Boolean(request.stdin) && provider.capabilities.write;
    const run = new Run(record, this.runContext(provider), {
      stdin: record.stdin,
      ...(typeof request.pty === "object" ? { ptySize: request.pty } : {}),
      ...(request.onStart ? { onStart: request.onStart } : {}),
    });
    for (const spec of request.watch ?? []) {
      run.log.watchers.add(spec);
    }
    return this.admit(run, () => this.registry.delete(record.id));
  }

  private runContext(provider: TerminalProvider): RunContext {
    return {
      provider,
      store: this.store,
      clock: this.clock,
      emit: (e) => this.events.emit(e),
      tuning: this.tuning,
      archive: this.archive,
    };
  }

  /** Registers a queued run, stores it and starts (or queues) it; `refused` undoes the registration. */
  private async admit(run: Run, refused: () => void): Promise<RunSnapshot> {
    const record = run.record;
    this.registry.add(run);
    this.store.putRun(record, { urgent: true });
    void run.settled.then(() => this.scheduler.done(record.id));
    let started: Promise<void> = Promise.resolve();
    try {
      // run.start() settles the run itself on any failure; a queued start is awaited by nobody.
      this.scheduler.admit(record.id, record.sessionId, () => {
        started = run.start();
      });
    } catch (error) {
      refused();
      throw error;
    }
    await started;
    return run.snapshot();
  }

  /**
   * Starts a recovered `queued` record again under its own id (`recover()` with the `requeue`
   * policy): its seq numbering and history continue. Watchers and `onStart` are not stored, so a
   * claimed run has none. Refused (the stored run kept) when the manager cannot take it now.
   */
  private claim(record: RunRecord): Promise<RunSnapshot> {
    if (this.disposal) {
      throw ProcessError.disposed();
    }
    const provider = this.providerFor(record.sessionId);
    if (record.pty && !provider.capabilities.pty) {
      throw ProcessError.unsupported(
        "A PTY",
        provider.kind,
        "recover with a provider that has PTYs",
      );
    }
    record.stdin = record.stdin && provider.capabilities.write;
    const run = new Run(record, this.runContext(provider), { stdin: record.stdin });
    return this.admit(run, () => this.registry.forget(record.id));
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

  get(runId: string, options: { sessionId?: string } = {}): RunSnapshot {
    return snapshotOf(this.registry.record(runId, options.sessionId), this.clock.now());
  }

  list(query: ListRunsQuery = {}): RunSnapshot[] {
    return this.registry.list(query).map((r) => snapshotOf(r, this.clock.now()));
  }

  /** Items from `sinceSeq` on; reads the client's output first so the answer is current. */
  async read(runId: string, query: ReadQuery = {}): Promise<ReadResult> {
    await this.refresh(runId, query.sessionId);
    const record = this.registry.record(runId, query.sessionId);
    return readPage(
      this.store,
      record,
      { ...query, maxChars: Math.max(1, query.maxChars ?? this.limits.maxOutputChars) },
      this.clock.now(),
    );
  }

  /** Lines by absolute offset/limit; omitted offset = the last `limit` lines. */
  async lines(
    runId: string,
    query: { sessionId?: string; offset?: number; limit?: number } = {},
  ): Promise<LineView & { run: RunSnapshot }> {
    await this.refresh(runId, query.sessionId);
    const record = this.registry.record(runId, query.sessionId);
    const view = lineView(record, this.store.allItems(runId), {
      limit: Math.min(Math.max(1, query.limit ?? 200), 10_000),
      ...(query.offset !== undefined ? { offset: query.offset } : {}),
    });
    return { ...view, run: snapshotOf(record, this.clock.now()) };
  }

  /**
   * Output bytes `[offset, offset + limit)` by absolute offset, from the run's spill or its
   * retained items (see `readOutputRange`: a range that cannot be read is an error saying why).
   */
  async bytes(
    runId: string,
    query: { sessionId?: string; offset: number; limit: number; wholeCharacters?: boolean },
  ): Promise<{
    bytes: Buffer;
    text: string;
    offset: number;
    totalBytes: number;
    run: RunSnapshot;
  }> {
    await this.refresh(runId, query.sessionId);
    const record = this.registry.record(runId, query.sessionId);
    const read = readOutputRange({ record, store: this.store, archive: this.archive }, query);
    return {
      ...read,
      text: read.bytes.toString("utf8"),
      run: snapshotOf(record, this.clock.now()),
    };
  }

  /** As `bytes`, cut at UTF-8 character boundaries and decoded. */
  async wholeCharacterBytes(
    runId: string,
    query: { sessionId?: string; offset: number; limit: number },
  ): Promise<{
    text: string;
    offset: number;
    byteLength: number;
    totalBytes: number;
    run: RunSnapshot;
  }> {
    const read = await this.bytes(runId, { ...query, wholeCharacters: true });
    return {
      text: read.text,
      offset: read.offset,
      byteLength: read.bytes.length,
      totalBytes: read.totalBytes,
      run: read.run,
    };
  }

  /** The last `maxChars` characters of output (default 2000), for status lines and snippets. */
  tail(
    runId: string,
    options: { sessionId?: string; maxChars?: number } = {},
  ): { text: string; truncated: boolean } {
    this.registry.record(runId, options.sessionId);
    return storeTail(this.store, runId, Math.max(1, options.maxChars ?? 2000));
  }

  /** Writes to a running run's stdin (see `StartRunOptions.stdin`). */
  async write(
    runId: string,
    data: string | Uint8Array,
    options: { sessionId?: string; eof?: boolean } = {},
  ): Promise<void> {
    await writeInput(
      this.registry.requireLive(runId, options.sessionId),
      data,
      options.eof ?? false,
    );
  }

  /**
   * Named keys and text (`["q", "Enter"]`, `["C-c"]`, `[{text: "Enter"}]`) encoded by acp-terminal's
   * key table and written to stdin; `Enter` is `\r` in a PTY and `\n` on a pipe. Unknown-looking
   * names throw with the list of valid ones.
   */
  async sendKeys(
    runId: string,
    keys: readonly KeyInput[],
    options: { sessionId?: string } = {},
  ): Promise<void> {
    const run = this.registry.requireLive(runId, options.sessionId);
    await writeInput(run, encodeKeyInput(keys, { pty: run.record.pty }), false);
  }

  async resize(
    runId: string,
    cols: number,
    rows: number,
    options: { sessionId?: string } = {},
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
    if (options.signal !== undefined && !SIGNAL_NAMES.includes(options.signal.toUpperCase())) {
      throw ProcessError.invalidParams(
        "signal",
        `one of ${SUPPORTED_SIGNALS.join(", ")}`,
        options.signal,
      );
    }
    const run = this.registry.live(runId, options.sessionId);
    if (!run || run.isSettled) {
      return { run: this.get(runId, options), wasLive: false, signalsSent: [] };
    }
    const report = await run.terminateWithReport("kill", {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.forceAfterMs !== undefined ? { forceAfterMs: options.forceAfterMs } : {}),
      ...(options.escalate !== undefined ? { escalate: options.escalate } : {}),
    });
    return {
      run: report.settled ? await run.settled : run.snapshot(),
      wasLive: true,
      signalsSent: report.signalsSent,
    };
  }

  /**
   * CPU time and memory of a running command's process group, where the provider can measure them
   * (the local provider on Linux); otherwise `usage: null` and a note saying why.
   */
  async resourceUsage(
    runId: string,
    options: { sessionId?: string } = {},
  ): Promise<{ usage: ResourceUsage | null; note?: string }> {
    const run = this.registry.live(runId, options.sessionId);
    if (run) {
      return runUsage(run);
    }
    const stored = this.registry.record(runId, options.sessionId).resourceUsage ?? null; // not found → throws
    return stored
      ? { usage: stored }
      : { usage: null, note: "no sample was taken while the command ran" };
  }

  watch(runId: string, spec: WatcherSpec, options: { sessionId?: string } = {}): string {
    return this.registry.requireLive(runId, options.sessionId).log.watchers.add(spec);
  }

  unwatch(runId: string, watcherId: string, options: { sessionId?: string } = {}): boolean {
    return this.registry.requireLive(runId, options.sessionId).log.watchers.remove(watcherId);
  }

  /** Forgets a finished run and its output. A running run must be killed first. */
  remove(runId: string, options: { sessionId?: string } = {}): void {
    const record = this.registry.record(runId, options.sessionId);
    if (!isFinished(record.status)) {
      throw new ProcessError(
        "still_running",
        `Run ${runId} is ${record.status}; kill it before removing it`,
      );
    }
    this.registry.delete(runId);
  }

  /** Removes every finished run (of a session, when given). Returns how many. */
  clear(options: { sessionId?: string } = {}): number {
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
      claim: (record) => this.claim(record),
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
  async refresh(runId: string, sessionId?: string): Promise<void> {
    const run = this.registry.live(runId, sessionId);
    if (run && run.record.status === "running") {
      await run.refresh();
    }
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
