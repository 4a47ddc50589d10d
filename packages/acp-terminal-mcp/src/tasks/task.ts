import type { CallToolResult } from "@modelcontextprotocol/server";

/** A task of this server as both revisions' wire shapes are made from it (see task-methods.ts). */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** An elicitation a working task needs answered (2026-07-28 `inputRequests`, keyed). */
export interface TaskInputRequest {
  method: "elicitation/create";
  params: Record<string, unknown>;
}

/** What a task is made from: the call's result to come, and how to stop and describe it. */
export interface TaskWork {
  /** Settles with the call's final answer (what a direct call would have answered, whole). */
  result: Promise<CallToolResult>;
  /** Kills what the call started; resolves once it has ended (or given up waiting). */
  cancel(): Promise<void>;
  /** A line for `statusMessage` while it works: the runs' status, output and last line. */
  describe(): string;
  /** Input the command waits for (its stdin), asked of a 2026-07-28 client through `tasks/update`. */
  input?: {
    /** What to ask now (the command waits for input), or undefined. */
    pending(): Promise<string | undefined>;
    /** Writes the client's answer (an elicitation response) to the command's stdin. */
    answer(response: unknown): Promise<void>;
  };
}

export interface Task {
  readonly taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  readonly createdAtMs: number;
  lastUpdatedAtMs: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  result?: CallToolResult;
  /** For `failed`: the JSON-RPC error the call ended with. */
  error?: { code: number; message: string };
  inputRequests?: Record<string, TaskInputRequest>;
  /** The wire generation that created it: 2025-11-25 tasks are not visible to 2026 requests, nor the reverse. */
  readonly era: "2025" | "2026";
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}
