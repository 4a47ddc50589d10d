import { ProcessError } from "../../base/errors.js";
import type { RunSnapshot } from "../../model/run-events.js";
import type { RunRecord } from "../../model/run-record.js";
import type { TerminalProvider } from "../../providers/types.js";
import { hasResourceLimits, validateResourceLimits } from "../run/resource-limits.js";
import { Run, type RunContext } from "../run/run.js";
import type { StartRunOptions } from "./options.js";
import { newRecord, validateStart } from "./records.js";
import type { RunRegistry } from "./registry.js";
import { Scheduler, type SchedulerLimits } from "./scheduler.js";

/** What admission shares with its manager. */
export interface AdmissionContext {
  /** What every run is given, but for its session's provider. */
  runs: Omit<RunContext, "provider">;
  registry: RunRegistry;
  providerFor: (sessionId: string) => TerminalProvider;
  /** Hard timeout when a start request gives none. */
  defaultTimeoutMs: number;
  limits: Partial<SchedulerLimits> | undefined;
}

/**
 * Turns a start request, or a recovered `queued` record, into a running (or queued) `Run`:
 * refuses what the session's provider cannot do, registers and stores the run, then starts it or
 * queues it under the concurrency caps.
 */
export class RunAdmission {
  private readonly scheduler: Scheduler;

  constructor(private readonly ctx: AdmissionContext) {
    this.scheduler = new Scheduler({
      maxConcurrentRuns: 16,
      maxConcurrentPerSession: 16,
      maxQueuedRuns: 64,
      ...ctx.limits,
    });
  }

  /** Starts (or queues) a run; resolves once it is running, queued, or failed to start. */
  async start(request: StartRunOptions): Promise<RunSnapshot> {
    validateStart(request);
    const provider = this.ctx.providerFor(request.sessionId);
    if (request.pty) {
      requirePty(
        provider,
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
    const record = newRecord(request, this.ctx.runs.clock.now(), this.ctx.defaultTimeoutMs);
    if (hasResourceLimits(request.resourceLimits)) {
      record.resourceLimits = { ...request.resourceLimits };
    }
    record.stdin = Boolean(request.stdin) && provider.capabilities.write;
    const run = new Run(
      record,
      { ...this.ctx.runs, provider },
      {
        stdin: record.stdin,
        ...(typeof request.pty === "object" ? { ptySize: request.pty } : {}),
        ...(request.onStart ? { onStart: request.onStart } : {}),
      },
    );
    for (const spec of request.watch ?? []) {
      run.log.watchers.add(spec);
    }
    return this.admit(run, () => this.ctx.registry.delete(record.id));
  }

  /**
   * Starts a recovered `queued` record again under its own id (`recover()` with the `requeue`
   * policy): its seq numbering and history continue. Watchers and `onStart` are not stored, so a
   * claimed run has none. Refused (the stored run kept) when the manager cannot take it now.
   */
  claim(record: RunRecord): Promise<RunSnapshot> {
    const provider = this.ctx.providerFor(record.sessionId);
    if (record.pty) {
      requirePty(provider, "recover with a provider that has PTYs");
    }
    record.stdin = record.stdin && provider.capabilities.write;
    const run = new Run(record, { ...this.ctx.runs, provider }, { stdin: record.stdin });
    return this.admit(run, () => this.ctx.registry.forget(record.id));
  }

  /** Registers a queued run, stores it and starts (or queues) it; `refused` undoes the registration. */
  private async admit(run: Run, refused: () => void): Promise<RunSnapshot> {
    const record = run.record;
    this.ctx.registry.add(run);
    this.ctx.runs.store.putRun(record, { urgent: true });
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
}

/** A PTY asked of a provider that has none is refused, saying what to do `instead`. */
function requirePty(provider: TerminalProvider, instead: string): void {
  if (!provider.capabilities.pty) {
    throw ProcessError.unsupported("A PTY", provider.kind, instead);
  }
}
