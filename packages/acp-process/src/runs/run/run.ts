// One file over 300 lines because a Run is one state machine (queued → starting → running →
// exited → settling → settled): start, the exit, terminate and settle each check and move the same
// phase, record, reader and AbortController, and their guards hold only while one class owns them.
import { messageOf, ProcessError } from "../../base/errors.js";
import type { ProviderExitStatus, TerminalProvider } from "../../providers/types.js";
import { SnapshotReader } from "./snapshot-reader.js";
import { createTerminal, type RunLaunch } from "./launch.js";
import { OutputLog } from "../output/output-log.js";
import { armRunTimers } from "./run-timers.js";
import { withinMs } from "./deadline.js";
import { releaseTerminal } from "./release.js";
import { killSequence, type KillReport } from "./terminate.js";
import { classifyStartFailure } from "./start-failure.js";
import { UsageSampler } from "./usage-sample.js";
import { InputWatch } from "./input-watch.js";
import { describeEnd, displayCommand, snapshotOf } from "./describe.js";
import type { RunContext } from "./context.js";
import type { RunRecord, TerminationCause } from "../../model/run-record.js";
import type { RunSnapshot } from "../../model/run-events.js";
import { WatcherSet } from "../output/watchers.js";
import { RunSpill } from "../spill/run-spill.js";
import { RecordSaver } from "./record-saver.js";

export type { RunContext, RunTuning } from "./context.js";

/**
 * Where a run is in its life; only ever moves forward:
 * queued → starting → running → exited → settling → settled. A run that cannot start, or is
 * killed while queued, goes from queued/starting straight to settling.
 * - `starting`: the create request is in flight; a kill now ends the run once the terminal exists.
 * - `exited`: the client reported the exit (or stopped answering after a kill); the final output
 *   is being read.
 * - `settling`: status, events and release are being written; the run's timers are aborted.
 */
export type RunPhase = "queued" | "starting" | "running" | "exited" | "settling" | "settled";

/**
 * One command's life: create the terminal, read output by adaptive polling, race the exit against
 * the timeouts, read the final output, settle exactly once, release the terminal. One
 * AbortController per run owns its timers and its poll loop; it aborts when the run settles.
 */
/** Why a run's timers and readers stop (abort() without a reason builds a DOMException per run). */
const SETTLED = "settled";

export class Run {
  readonly log: OutputLog;
  private readonly controller = new AbortController();
  private readonly settledPromise: Promise<RunSnapshot>;
  private resolveSettled!: (snapshot: RunSnapshot) => void;
  private currentPhase: RunPhase = "queued";
  /** How the command ended; set exactly when the phase becomes `exited`. */
  private exitStatus: ProviderExitStatus | null = null;
  private reader: SnapshotReader | null = null;
  private startHook: Promise<void> = Promise.resolve();
  private lastOutputAtMs = 0;
  private readonly saver: RecordSaver;
  private readonly usage: UsageSampler;
  /** Notices the command waiting for input (`record.inputRequired`); input written clears it. */
  inputWatch: InputWatch | null = null;

  constructor(
    readonly record: RunRecord,
    private readonly ctx: RunContext,
    private readonly launch: RunLaunch,
  ) {
    this.settledPromise = new Promise((resolve) => (this.resolveSettled = resolve));
    this.saver = new RecordSaver(record, ctx.store);
    this.log = new OutputLog(
      record,
      ctx.store,
      ctx.emit,
      new WatcherSet(ctx.tuning.watcherLimits),
      () => ctx.clock.now(),
      new RunSpill(ctx.archive, ctx.store, record),
      (error) => this.saver.noteFailure(error),
    );
    this.usage = new UsageSampler(record, ctx.provider, () => this.currentPhase === "running");
  }

  get provider(): TerminalProvider {
    return this.ctx.provider;
  }

  /** Bound on a single call to the provider (see `RunTuning.callWaitMs`). */
  get callWaitMs(): number {
    return this.ctx.tuning.callWaitMs;
  }

  get settled(): Promise<RunSnapshot> {
    return this.settledPromise;
  }

  get phase(): RunPhase {
    return this.currentPhase;
  }

  /** True from the moment the run starts to settle (its timers are aborted then). */
  get isSettled(): boolean {
    return this.currentPhase === "settling" || this.currentPhase === "settled";
  }

  snapshot(): RunSnapshot {
    return snapshotOf(this.record, this.ctx.clock.now());
  }

  /** queued → running. Resolves once the terminal exists (or the run failed to start). */
  async start(): Promise<void> {
    if (this.currentPhase !== "queued" || this.record.cause) {
      return;
    }
    const { provider, tuning } = this.ctx;
    this.currentPhase = "starting";
    try {
      this.record.terminalId = await createTerminal(provider, this.record, this.launch, tuning);
    } catch (error) {
      this.record.cause = "spawn_error";
      this.record.startFailure = classifyStartFailure(error);
      this.record.error = `could not start (${messageOf(error)}): ${displayCommand(this.record)}`;
      await this.settle();
      return;
    }
    this.currentPhase = "running";
    this.record.startedAtMs = this.lastOutputAtMs = this.ctx.clock.now();
    this.transition("running");
    this.startHook = this.callOnStart();
    armRunTimers({
      clock: this.ctx.clock,
      signal: this.controller.signal,
      timeoutMs: this.record.timeoutMs,
      idleTimeoutMs: this.record.idleTimeoutMs,
      lastOutputAtMs: () => this.lastOutputAtMs,
      onTimeout: (cause) => void this.terminate(cause),
    });
    this.usage.start(this.ctx.clock, this.controller.signal);
    this.reader = new SnapshotReader(
      provider,
      this.record.terminalId,
      this.log,
      () => {
        this.lastOutputAtMs = this.ctx.clock.now();
        this.inputWatch?.noteOutput();
      },
      (reason) => {
        this.record.error ??= `${reason}; the command was stopped: ${displayCommand(this.record)}`;
        void this.terminate("provider_error");
      },
    );
    this.inputWatch = new InputWatch(
      this.record,
      provider,
      this.ctx.clock,
      () => this.log.snippet,
      () => (this.saver.save(), this.ctx.emit({ type: "input", run: this.snapshot() })),
      this.controller.signal,
    );
    if (!this.reader.startStream()) {
      void this.reader.poll({
        minMs: tuning.pollMinMs,
        maxMs: tuning.pollMaxMs,
        signal: this.controller.signal,
        stop: () => this.currentPhase !== "running",
      });
    }
    this.watchExit(this.record.terminalId);
    // Killed while the create request was in flight: end it now that it has a terminal.
    if (this.record.cause) {
      await this.terminate(this.record.cause);
    }
  }

  /** Reads the client's output now (coalesced with a read already in flight). */
  async refresh(): Promise<void> {
    // A client that stops answering must not hang readers: they get what was read so far.
    if (this.reader && !this.isSettled) {
      await withinMs(this.reader.read(), this.ctx.tuning.callWaitMs);
    }
  }

  /**
   * Ends the run (see `killSequence` for signals and escalation); a queued run ends without a
   * terminal, a run that already exited keeps that end.
   */
  async terminate(
    cause: TerminationCause,
    options: { signal?: string; forceAfterMs?: number; escalate?: boolean } = {},
  ): Promise<RunSnapshot> {
    await this.terminateWithReport(cause, options);
    return this.snapshot();
  }

  /**
   * As `terminate`, saying which signals were delivered and whether the run has ended. Without
   * escalation a command that ignores the signal is still running when this resolves.
   */
  async terminateWithReport(
    cause: TerminationCause,
    options: { signal?: string; forceAfterMs?: number; escalate?: boolean } = {},
  ): Promise<KillReport> {
    const none: KillReport = { settled: true, signalsSent: [] };
    if (this.isSettled) {
      return none;
    }
    // It already ended on its own (its final output is being read): that end is the first cause.
    if (this.currentPhase === "exited") {
      await this.settled;
      return none;
    }
    this.record.cause ??= cause;
    if (this.currentPhase === "queued" || this.currentPhase === "starting") {
      // While the terminal is being created, start() ends it as soon as it exists.
      if (this.currentPhase === "queued") {
        await this.settle();
      }
      await this.settled;
      return none;
    }
    const terminalId = this.record.terminalId;
    if (!terminalId) {
      await this.settled;
      return none;
    }
    const { provider, tuning } = this.ctx;
    await this.takeUsageSample();
    // It may have exited while it was sampled: that end stands, and there is nothing to signal.
    if (this.currentPhase !== "running") {
      await this.settled;
      return none;
    }
    const target = {
      provider,
      terminalId,
      log: this.log,
      callWaitMs: tuning.callWaitMs,
      settledWithin: (ms: number) => this.settledWithin(ms),
    };
    const killOptions = {
      forceAfterMs: options.forceAfterMs ?? tuning.forceAfterMs,
      killWaitMs: tuning.killWaitMs,
      escalate: options.escalate ?? true,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const report = await killSequence(target, killOptions);
    if (!report.settled && killOptions.escalate) {
      this.record.error = `the client did not report an exit within ${tuning.killWaitMs} ms of the kill: ${displayCommand(this.record)}`;
      this.noteExit({ exitCode: null, signal: null });
      await this.settle();
      return { ...report, settled: true };
    }
    return report;
  }

  /** Samples CPU and memory now (where the provider can); the last sample outlives the run. */
  takeUsageSample(): Promise<void> {
    return this.usage.take();
  }

  private watchExit(terminalId: string): void {
    this.ctx.provider
      .waitForExit(terminalId)
      .then(
        (status) => this.onExit(status),
        (error: unknown) => {
          this.record.cause ??= "provider_error";
          this.record.error ??= `lost track of the command (${messageOf(error)}): ${displayCommand(this.record)}`;
          this.noteExit({ exitCode: null, signal: null });
          return this.settle();
        },
      )
      .catch((error: unknown) => {
        // settle() itself never throws by design; if it does, keep the reason visible.
        this.record.error ??= `internal error while finishing the run: ${messageOf(error)}`;
      });
  }

  /** running → exited; an exit noted already (or a run already settling) keeps its end. */
  private noteExit(status: ProviderExitStatus): void {
    if (this.currentPhase !== "running") {
      return;
    }
    this.exitStatus = status;
    this.currentPhase = "exited";
  }

  private async onExit(status: ProviderExitStatus): Promise<void> {
    this.noteExit(status);
    const { exitDrainMs, callWaitMs, pollMinMs } = this.ctx.tuning;
    this.reader?.wake();
    await this.reader?.drain(
      { drainMs: exitDrainMs, callWaitMs, pollMs: pollMinMs },
      () => this.isSettled,
    );
    await this.settle();
  }

  private async settledWithin(ms: number): Promise<boolean> {
    return this.isSettled || (await withinMs(this.settled, ms)).ok;
  }

  /**
   * The single place a run ends: status, events (exit exactly once), release, abort timers. A store
   * that fails here is noted in `error`; the terminal is released and waiters resolve regardless.
   */
  private async settle(): Promise<void> {
    if (this.isSettled) {
      return;
    }
    this.currentPhase = "settling";
    this.controller.abort(SETTLED);
    // The output is final from here: a read still in flight or queued must not add to it after
    // the final flush below, nor fail on the released terminal and leave a notice.
    this.reader?.close();
    try {
      // The output is final: watchers report what they held back (a last line without a newline,
      // a stream match at the very end); the spill is written out.
      this.log.appendOutput("", true);
      this.log.spill.close();
      this.record.inputRequired = null;
      const end = describeEnd(this.record, this.exitStatus);
      this.record.exitCode = this.exitStatus?.exitCode ?? null;
      this.record.signal = this.exitStatus?.signal ?? null;
      this.saver.noteEnd(end.error);
      this.record.endedAtMs = this.ctx.clock.now();
      this.transition(end.status);
      if (!this.record.exitNotified) {
        this.record.exitNotified = true;
        this.saver.save();
        this.ctx.emit({ type: "exit", run: this.snapshot() });
      }
    } finally {
      await this.release();
      // The reader holds the last snapshot (up to the client's output limit): let it go.
      this.reader = null;
      this.currentPhase = "settled";
      this.resolveSettled(this.snapshot());
    }
  }

  /** The caller's onStart (e.g. embedding the terminal in a tool call); never rejects. */
  private async callOnStart(): Promise<void> {
    try {
      await this.launch.onStart?.(this.snapshot());
    } catch (error) {
      this.log.appendNotice(`[acp-process] onStart failed: ${messageOf(error)}`);
    }
  }

  private async release(): Promise<void> {
    const terminalId = this.record.terminalId;
    if (!terminalId) {
      return;
    }
    const failure = await releaseTerminal(
      this.ctx.provider,
      terminalId,
      this.startHook,
      this.ctx.tuning.releaseWaitMs,
    );
    if (failure !== null) {
      this.log.appendNotice(`[acp-process] releasing terminal ${terminalId} failed: ${failure}`);
    }
    this.record.terminalId = null;
    this.saver.save();
  }

  private transition(status: RunRecord["status"]): void {
    const previous = this.record.status;
    if (previous === status) {
      return;
    }
    this.record.status = status;
    this.saver.save();
    this.ctx.emit({ type: "status", run: this.snapshot(), previous });
  }

  /** Guards for stdin/resize/signal callers. */
  requireRunning(): string {
    if (this.currentPhase !== "running" || !this.record.terminalId) {
      throw ProcessError.notRunning(this.record.id, this.record.status);
    }
    return this.record.terminalId;
  }
}
