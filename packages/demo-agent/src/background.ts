import type { RunEvent, RunSnapshot } from "acp-process";
import { describeRun, fenced, runFacts } from "./format.js";
import { reportError } from "./report-error.js";
import type { DemoSession } from "./session.js";
import { toolStatusOf, type ToolCall } from "./tool-call.js";

/**
 * Tells the client when a background run ends — once, because acp-process emits exactly one
 * `exit` event per run — and when a watcher matches. Both are sent even after the turn that
 * started the run has ended: ACP lets an agent send `session/update` at any time.
 */
export class BackgroundReporter {
  private readonly calls = new Map<string, ToolCall>();
  private readonly exits = new Map<string, { promise: Promise<RunSnapshot>; resolve: (run: RunSnapshot) => void }>();

  constructor(private readonly session: DemoSession) {}

  /** Registers a background run's tool call before the run starts (a fast run may end at once). */
  expect(call: ToolCall): void {
    this.calls.set(call.id, call);
  }

  /** Resolves once the exit of a background run has been reported. */
  reported(runId: string): Promise<RunSnapshot> {
    return this.exitEntry(runId).promise;
  }

  onEvent(event: RunEvent): void {
    if (event.type === "exit") void this.reportExit(event.run);
    if (event.type === "watch") {
      const text = `watch ${event.runId}: /${event.event}/ matched ${JSON.stringify(event.match)} (seq ${event.seq})\n`;
      void this.send(this.session.say(text, { event: "watch", runId: event.runId, pattern: event.event, match: event.match, seq: event.seq }), `reporting a watcher hit of ${event.runId}`);
    }
  }

  private async reportExit(run: RunSnapshot): Promise<void> {
    const call = this.calls.get(run.labels["toolCallId"] ?? "");
    if (call === undefined) return; // a foreground run: its own tool call reports the result
    this.calls.delete(call.id);
    const output = this.session.manager.tail(run.id, { maxChars: 2000 }).text;
    await this.send(call.finish(toolStatusOf(run), `${describeRun(run)}\n${fenced(output)}`, runFacts(run)), `finishing the tool call of ${run.id}`);
    await this.send(this.session.say(`Background run ${run.id} ended: ${describeRun(run)}.\n`, { event: "exit", ...runFacts(run) }), `reporting the exit of ${run.id}`);
    this.exitEntry(run.id).resolve(run);
  }

  private exitEntry(runId: string): { promise: Promise<RunSnapshot>; resolve: (run: RunSnapshot) => void } {
    let entry = this.exits.get(runId);
    if (entry === undefined) {
      let resolve!: (run: RunSnapshot) => void;
      const promise = new Promise<RunSnapshot>((r) => (resolve = r));
      entry = { promise, resolve };
      this.exits.set(runId, entry);
    }
    return entry;
  }

  /** Sends a report nobody awaits: a failure (often a client that has gone since the run started) is logged. */
  private async send(notification: Promise<void>, what: string): Promise<void> {
    await notification.catch((error: unknown) => reportError(what, error));
  }
}
