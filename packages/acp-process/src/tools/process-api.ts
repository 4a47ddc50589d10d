import { commandLine } from "../runs/describe.js";
import { signalNameSchema } from "acp-terminal";
import { z } from "zod";
import type { ProcessManager } from "../runs/manager.js";
import type { RunSnapshot, RunStatus } from "../runs/types.js";
import { defineTool, fromContext } from "./types.js";

const DEFAULT_TIMEOUT_S = 300;
const MAX_TIMEOUT_S = 3600;

/** The four states of this surface. `failed` runs are `completed` with a non-zero `exit_code`; `lost` ones `killed`. */
export type ProcessState = "completed" | "running" | "killed" | "timed_out";

export function processState(status: RunStatus): ProcessState {
  switch (status) {
    case "queued":
    case "running":
      return "running";
    case "killed":
    case "lost":
      return "killed";
    case "timed_out":
      return "timed_out";
    default:
      return "completed";
  }
}

/** `resource_usage` `{cpu_user_ms, cpu_system_ms, rss_bytes, processes}` or null with `resource_usage_note`. */
async function usageOf(manager: ProcessManager, runId: string, sessionId: string): Promise<Record<string, unknown>> {
  const { usage, note } = await manager.resourceUsage(runId, { sessionId });
  if (!usage) return { resource_usage: null, resource_usage_note: note };
  return { resource_usage: { cpu_user_ms: usage.cpuUserMs, cpu_system_ms: usage.cpuSystemMs, rss_bytes: usage.rssBytes, processes: usage.processes } };
}

function describe(manager: ProcessManager, run: RunSnapshot, outputChars: number): Record<string, unknown> {
  const tail = manager.tail(run.id, { maxChars: outputChars });
  return {
    id: run.id,
    command: commandLine(run),
    state: processState(run.status),
    exit_code: run.exitCode,
    signal: run.signal,
    duration_ms: run.durationMs,
    stdout: tail.text,
    // ACP terminals merge stderr into stdout; it is never empty by accident.
    stderr: "",
    streams_merged: true,
    stdout_truncated: tail.truncated,
    // As process.logs' total_lines: an unterminated last line counts.
    stdout_lines: run.lineCount + (tail.text.length > 0 && !tail.text.endsWith("\n") ? 1 : 0),
    ...(run.error ? { error: run.error } : {}),
  };
}

const processRunSchema = z.object({
  command: z.string().min(1).describe("Command line (or program, when args are given)"),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional().describe("Absolute working directory"),
  env: z.record(z.string(), z.string()).optional(),
  timeout: z.number().positive().max(MAX_TIMEOUT_S).optional().describe(`Seconds before the run is killed (default ${DEFAULT_TIMEOUT_S}, max ${MAX_TIMEOUT_S})`),
  background: z.boolean().optional().describe("Return at once with state 'running'; follow with process.monitor"),
});

export const processRunTool = defineTool({
  name: "process.run",
  description: "Run a command to completion (or in the background) and return its state, exit code, output and duration.",
  schema: processRunSchema,
  async run(ctx, input) {
    const { manager, sessionId } = ctx;
    const started = await manager.start({
      sessionId,
      command: input.command,
      ...(input.args ? { args: input.args } : {}),
      ...(input.cwd ? { cwd: input.cwd } : {}),
      ...(input.env ? { env: input.env } : {}),
      timeoutMs: Math.round((input.timeout ?? DEFAULT_TIMEOUT_S) * 1000),
      ...fromContext(ctx, "process.run"),
    });
    const run = input.background ? started : await manager.wait(started.id);
    return { ...describe(manager, run, manager.limits.maxOutputChars), ...(await usageOf(manager, run.id, sessionId)) };
  },
});

const processMonitorSchema = z.object({ id: z.string().min(1) });

export const processMonitorTool = defineTool({
  name: "process.monitor",
  description: "State, exit code, duration, line count and recent output of a run.",
  schema: processMonitorSchema,
  async run({ manager, sessionId }, input) {
    await manager.refresh(input.id, sessionId);
    const run = manager.get(input.id, { sessionId });
    return { ...describe(manager, run, 2000), ...(await usageOf(manager, run.id, sessionId)) };
  },
});

const processKillSchema = z.object({
  id: z.string().min(1),
  signal: signalNameSchema.optional().describe("Signal name, default SIGTERM (delivered where the client supports signals)"),
  force_after: z.number().min(0).max(60).optional().describe("Seconds before escalating to a forced kill (default 5)"),
});

export const processKillTool = defineTool({
  name: "process.kill",
  description: "Stop a running command with a signal, forcing it after force_after seconds.",
  schema: processKillSchema,
  async run({ manager, sessionId }, input) {
    const run = await manager.kill(input.id, { sessionId, signal: input.signal ?? "SIGTERM", forceAfterMs: Math.round((input.force_after ?? 5) * 1000) });
    return { ...describe(manager, run, 2000), ...(await usageOf(manager, run.id, sessionId)) };
  },
});

const processListSchema = z.object({
  state: z.enum(["completed", "running", "killed", "timed_out"]).optional(),
  limit: z.number().int().min(1).max(500).optional(),
});

export const processListTool = defineTool({
  name: "process.list",
  description: "Runs of this session, newest first, optionally filtered by state.",
  schema: processListSchema,
  async run({ manager, sessionId }, input) {
    const runs = manager.list({ sessionId, limit: 500 }).filter((run) => !input.state || processState(run.status) === input.state);
    return {
      processes: runs.slice(0, input.limit ?? 50).map((run) => ({
        id: run.id,
        command: commandLine(run),
        state: processState(run.status),
        exit_code: run.exitCode,
        duration_ms: run.durationMs,
      })),
    };
  },
});

const processLogsSchema = z.object({
  id: z.string().min(1),
  offset: z.number().int().min(0).optional().describe("First line (0-based); omitted = the last `limit` lines"),
  limit: z.number().int().min(1).max(10_000).optional().describe("Lines (default 200)"),
});

export const processLogsTool = defineTool({
  name: "process.logs",
  description: "Output lines of a run by offset and limit (omitted offset: the last lines).",
  schema: processLogsSchema,
  async run({ manager, sessionId }, input) {
    const view = await manager.lines(input.id, { sessionId, limit: input.limit ?? 200, ...(input.offset !== undefined ? { offset: input.offset } : {}) });
    return { id: input.id, state: processState(view.run.status), lines: view.lines, offset: view.offset, total_lines: view.totalLines, dropped_lines: view.droppedLines };
  },
});

export const processTools = [processRunTool, processMonitorTool, processKillTool, processListTool, processLogsTool] as const;
