import type { ProcessManager, RunEvent, RunSnapshot } from "acp-process";
import { describeRun, fenced, runFacts } from "./format.js";
import { reportError } from "./report-error.js";
import { toolStatusOf, type ToolCall } from "./tool-call.js";

/** What the reporter needs of the session that owns it (session.ts). */
export interface ReportingSession {
  readonly id: string;
  readonly manager: ProcessManager;
  say(text: string, facts?: Record<string, unknown>): Promise<void>;
  outputTail(runId: string): string;
}

/**
 * Tells the client when a background run ends — once, because acp-process emits exactly one
 * `exit` event per run — and when a watcher matches. Both are sent even after the turn that
 * started the run has ended: ACP lets an agent send `session/update` at any time.
 *
 * It holds only what is still to come: the tool calls of background runs that have not ended,
 * the exit reports being sent, and the callers waiting for an exit. Each entry goes when its run
 * has been reported.
 */
export class BackgroundReporter {
  /** Tool calls of background runs not yet reported, by tool call id. */
  private readonly calls = new Map<string, ToolCall>();
  /** Exit reports being sent, by run id. */
  private readonly reporting = new Map<string, Promise<RunSnapshot>>();
  /** Callers of `reported()` waiting for a run that has not ended, by run id. */
  private readonly waiters = new Map<string, ((run: RunSnapshot) => void)[]>();

  constructor(private readonly session: ReportingSession) {}

  /** Registers a background run's tool call before the run starts (a fast run may end at once). */
  expect(call: ToolCall): void {
    this.calls.set(call.id, call);
  }

  /** Drops a tool call whose run never started (the start threw): no exit will come for it. */
  forget(call: ToolCall): void {
    this.calls.delete(call.id);
  }

  /** Entries still held: tool calls awaiting their run's exit, reports being sent, waiting callers. */
  get pending(): number {
    return this.calls.size + this.reporting.size + this.waiters.size;
  }

  /** Resolves once the exit of a background run has been reported (at once if it already has). */
  reported(runId: string): Promise<RunSnapshot> {
    const sending = this.reporting.get(runId);
    if (sending !== undefined) {
      return sending;
    }
    const run = this.session.manager.get(runId, { sessionId: this.session.id });
    const exitToCome = run.endedAtMs === null || this.calls.has(run.labels["toolCallId"] ?? "");
    if (!exitToCome) {
      return Promise.resolve(run);
    }
    return new Promise((resolve) =>
      this.waiters.set(runId, [...(this.waiters.get(runId) ?? []), resolve]),
    );
  }

  onEvent(event: RunEvent): void {
    if (event.type === "exit") {
      void this.reportExit(event.run);
    }
    if (event.type === "watch") {
      const text = `watch ${event.runId}: /${event.event}/ matched ${JSON.stringify(event.match)} (seq ${event.seq})\n`;
      void this.send(
        this.session.say(text, {
          event: "watch",
          runId: event.runId,
          pattern: event.event,
          match: event.match,
          seq: event.seq,
        }),
        `reporting a watcher hit of ${event.runId}`,
      );
    }
  }

  private async reportExit(run: RunSnapshot): Promise<void> {
    const call = this.calls.get(run.labels["toolCallId"] ?? "");
    // A foreground run's own tool call reports its result; only waiters (if any) are told here.
    if (call !== undefined) {
      this.calls.delete(call.id);
      const sent = this.announce(call, run);
      this.reporting.set(run.id, sent);
      await sent;
      this.reporting.delete(run.id);
    }
    for (const resolve of this.waiters.get(run.id) ?? []) {
      resolve(run);
    }
    this.waiters.delete(run.id);
  }

  /** Finishes the run's tool call and says that it ended. */
  private async announce(call: ToolCall, run: RunSnapshot): Promise<RunSnapshot> {
    const output = this.session.outputTail(run.id);
    await this.send(
      call.finish(toolStatusOf(run), `${describeRun(run)}\n${fenced(output)}`, runFacts(run)),
      `finishing the tool call of ${run.id}`,
    );
    await this.send(
      this.session.say(`Background run ${run.id} ended: ${describeRun(run)}.\n`, {
        event: "exit",
        ...runFacts(run),
      }),
      `reporting the exit of ${run.id}`,
    );
    return run;
  }

  /** Sends a report nobody awaits: a failure (often a client that has gone since the run started) is logged. */
  private async send(notification: Promise<void>, what: string): Promise<void> {
    await notification.catch((error: unknown) => reportError(what, error));
  }
}
