import { randomUUID } from "node:crypto";
import { messageOf } from "acp-terminal/internal";
import { stdinRequest } from "./task-stdin.js";
import { isTerminal, type Task, type TaskInputRequest, type TaskWork } from "./task.js";

export interface TaskStoreOptions {
  /** Tasks kept at once (working and finished); the oldest finished go first. */
  maxTasks: number;
  /** Bytes of finished tasks' results kept (JSON); the oldest finished go first. */
  maxResultBytes: number;
  defaultTtlMs: number;
  maxTtlMs: number;
  pollIntervalMs: number;
  now?: () => number;
}

export const TASK_DEFAULTS: TaskStoreOptions = {
  maxTasks: 256,
  maxResultBytes: 64 * 1024 * 1024,
  defaultTtlMs: 3_600_000,
  maxTtlMs: 24 * 3_600_000,
  pollIntervalMs: 1000,
};

interface Entry {
  task: Task;
  work: TaskWork;
  resultBytes: number;
  settled: Promise<void>;
  /** Input requests asked so far (each key is used once over the task's life). */
  asked: number;
}

/**
 * The tasks of one server (every connection and HTTP request shares it): created from a call that
 * outlived its yield, settled by the call's answer, cancelled by killing its runs. Bounded in
 * number and in the bytes of kept results; a task is forgotten once its TTL has passed.
 */
export class TaskStore {
  private readonly entries = new Map<string, Entry>();
  private readonly options: TaskStoreOptions;
  private readonly now: () => number;

  constructor(options: Partial<TaskStoreOptions> = {}) {
    this.options = { ...TASK_DEFAULTS, ...options };
    this.now = options.now ?? Date.now;
  }

  /** Registers a task for `work`; `tasks/get` answers for it from now on. Throws when full of working tasks. */
  create(work: TaskWork, era: Task["era"], requestedTtlMs?: number): Task {
    this.sweep();
    if (this.entries.size >= this.options.maxTasks && !this.evictOldestFinished()) {
      throw new Error(
        `${this.entries.size} tasks are working already (at most ${this.options.maxTasks}); wait for one to end or cancel one`,
      );
    }
    const now = this.now();
    const ttlMs = Math.min(
      Math.max(requestedTtlMs ?? this.options.defaultTtlMs, 60_000),
      this.options.maxTtlMs,
    );
    const task: Task = {
      taskId: randomUUID(),
      status: "working",
      createdAtMs: now,
      lastUpdatedAtMs: now,
      ttlMs,
      pollIntervalMs: this.options.pollIntervalMs,
      era,
    };
    const entry: Entry = { task, work, resultBytes: 0, settled: Promise.resolve(), asked: 0 };
    entry.settled = work.result.then(
      (result) => this.finish(entry, { status: "completed", result }),
      (error: unknown) =>
        this.finish(entry, {
          status: "failed",
          error: { code: -32603, message: messageOf(error) },
        }),
    );
    this.entries.set(task.taskId, entry);
    return task;
  }

  /** The task as it stands (its status message refreshed), or undefined when unknown or expired. */
  get(taskId: string, era: Task["era"]): Task | undefined {
    this.sweep();
    const entry = this.entries.get(taskId);
    if (!entry || entry.task.era !== era) {
      return undefined;
    }
    if (entry.task.status === "working") {
      entry.task.statusMessage = entry.work.describe();
    }
    return entry.task;
  }

  /**
   * Asks for input while the task's command waits for it (`input_required` with one elicitation,
   * keyed `stdin-N`), and goes back to `working` when it no longer waits.
   */
  async refreshInput(taskId: string): Promise<void> {
    const entry = this.entries.get(taskId);
    if (!entry?.work.input || isTerminal(entry.task.status)) {
      return;
    }
    const question = await entry.work.input.pending();
    if (isTerminal(entry.task.status)) {
      return;
    }
    if (question === undefined) {
      this.setInputRequests(taskId, undefined);
    } else if (entry.task.status !== "input_required") {
      this.setInputRequests(taskId, {
        [`stdin-${++entry.asked}`]: stdinRequest(question),
      });
    }
  }

  /** Hands the answers to what the task asks now to its command; other keys are ignored. */
  async respond(taskId: string, responses: Record<string, unknown>): Promise<void> {
    const entry = this.entries.get(taskId);
    const asked = entry?.task.inputRequests;
    if (!entry?.work.input || !asked) {
      return;
    }
    for (const key of Object.keys(asked)) {
      if (key in responses) {
        this.setInputRequests(taskId, undefined);
        await entry.work.input.answer(responses[key]);
      }
    }
  }

  /** Resolves once the task has reached a terminal status (or at once when unknown). */
  async settled(taskId: string, signal: AbortSignal): Promise<void> {
    const entry = this.entries.get(taskId);
    if (!entry) {
      return;
    }
    const aborted = new Promise<void>((resolve) =>
      signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    await Promise.race([entry.settled, aborted]);
  }

  /** Tasks of an era, oldest first, from `cursor` (an index); at most `limit`. */
  list(era: Task["era"], cursor: number, limit: number): { tasks: Task[]; next?: number } {
    this.sweep();
    const all = [...this.entries.values()].filter((e) => e.task.era === era).map((e) => e.task);
    const page = all.slice(cursor, cursor + limit);
    return { tasks: page, ...(cursor + limit < all.length ? { next: cursor + limit } : {}) };
  }

  /**
   * Marks a working task cancelled and kills what it runs; resolves once that ended. A finished
   * task stays as it is. Undefined when unknown.
   */
  async cancel(taskId: string, era: Task["era"]): Promise<Task | undefined> {
    const entry = this.entries.get(taskId);
    if (!entry || entry.task.era !== era) {
      return undefined;
    }
    if (!isTerminal(entry.task.status)) {
      this.update(entry.task, { status: "cancelled", statusMessage: "cancelled by the client" });
      await entry.work.cancel();
    }
    return entry.task;
  }

  /** Sets or clears what a working task asks of the client. */
  setInputRequests(taskId: string, requests: Record<string, TaskInputRequest> | undefined): void {
    const task = this.entries.get(taskId)?.task;
    if (!task || isTerminal(task.status)) {
      return;
    }
    if (requests) {
      this.update(task, { status: "input_required", inputRequests: requests });
    } else if (task.status === "input_required") {
      delete task.inputRequests;
      this.update(task, { status: "working" });
    }
  }

  /** Cancels every working task (the server is stopping). */
  async dispose(): Promise<void> {
    await Promise.allSettled(
      [...this.entries.values()]
        .filter((e) => !isTerminal(e.task.status))
        .map((e) => this.cancel(e.task.taskId, e.task.era)),
    );
  }

  private finish(entry: Entry, outcome: Partial<Task>): void {
    const { task } = entry;
    if (task.status === "cancelled") {
      return; // the kill's answer is not the task's result
    }
    delete task.inputRequests;
    this.update(task, { ...outcome, statusMessage: describeEnd(outcome) });
    entry.resultBytes = JSON.stringify(outcome.result ?? outcome.error ?? null).length;
    this.keepResultsWithinBudget();
  }

  private update(task: Task, fields: Partial<Task>): void {
    Object.assign(task, fields);
    task.lastUpdatedAtMs = this.now();
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      if (isTerminal(entry.task.status) && now - entry.task.createdAtMs > entry.task.ttlMs) {
        this.entries.delete(id);
      }
    }
  }

  private evictOldestFinished(): boolean {
    for (const [id, entry] of this.entries) {
      if (isTerminal(entry.task.status)) {
        this.entries.delete(id);
        return true;
      }
    }
    return false;
  }

  private keepResultsWithinBudget(): void {
    let total = 0;
    for (const entry of this.entries.values()) {
      total += entry.resultBytes;
    }
    for (const [id, entry] of this.entries) {
      if (total <= this.options.maxResultBytes) {
        break;
      }
      if (isTerminal(entry.task.status)) {
        total -= entry.resultBytes;
        this.entries.delete(id);
      }
    }
  }
}

function describeEnd(outcome: Partial<Task>): string {
  if (outcome.status === "failed") {
    return `failed: ${outcome.error?.message ?? "unknown error"}`;
  }
  if (outcome.result?.isError) {
    // A 2025-11-25 task with an error result reads `failed`: its message is the error's.
    const first = outcome.result.content[0];
    return first?.type === "text" ? first.text : "the call answered with an error";
  }
  return "completed";
}
