import { ProcessError } from "../../base/errors.js";

export interface SchedulerLimits {
  /** Runs executing at once across all sessions. */
  maxConcurrentRuns: number;
  /** Runs executing at once per session (1 = one at a time). */
  maxConcurrentPerSession: number;
  /** Runs waiting for a slot; more are refused. */
  maxQueuedRuns: number;
}

interface Waiting {
  runId: string;
  sessionId: string;
  start: () => void;
}

/** FIFO admission of runs under the concurrency caps. A run holds its slot until `done`. */
export class Scheduler {
  private readonly active = new Map<string, string>(); // runId → sessionId
  private queue: Waiting[] = [];

  constructor(private readonly limits: SchedulerLimits) {}

  /** Starts now if a slot is free, else queues. Throws `limit_reached` when the queue is full. */
  admit(runId: string, sessionId: string, start: () => void): "started" | "queued" {
    // FIFO within a session; another session's queue does not block this one.
    if (this.hasSlot(sessionId) && !this.queue.some((w) => w.sessionId === sessionId)) {
      this.active.set(runId, sessionId);
      start();
      return "started";
    }
    if (this.queue.length >= this.limits.maxQueuedRuns) {
      throw new ProcessError(
        "limit_reached",
        `${this.queue.length} runs are already waiting for a slot (maxQueuedRuns ${this.limits.maxQueuedRuns}); wait for one to finish or kill one`,
      );
    }
    this.queue.push({ runId, sessionId, start });
    return "queued";
  }

  /** The run finished or left the queue: frees its slot and starts whoever fits. */
  done(runId: string): void {
    this.active.delete(runId);
    this.queue = this.queue.filter((w) => w.runId !== runId);
    for (let i = 0; i < this.queue.length;) {
      const next = this.queue[i]!;
      if (this.active.size >= this.limits.maxConcurrentRuns) {
        break;
      }
      if (this.hasSlot(next.sessionId)) {
        this.queue.splice(i, 1);
        this.active.set(next.runId, next.sessionId);
        next.start();
      } else {
        i++;
      }
    }
  }

  private hasSlot(sessionId: string): boolean {
    if (this.active.size >= this.limits.maxConcurrentRuns) {
      return false;
    }
    let inSession = 0;
    for (const s of this.active.values()) {
      if (s === sessionId) {
        inSession++;
      }
    }
    return inSession < this.limits.maxConcurrentPerSession;
  }
}
