import { z } from "zod";
import { isFinished } from "../runs/types.js";
import { outputFor } from "./format.js";
import { defineTool, fromContext } from "./types.js";

const DEFAULT_TIMEOUT_S = 1800;
/** 30 days, the longest timeout a run accepts. */
const MAX_TIMEOUT_S = 30 * 24 * 3600;
const TAIL_CHARS = 2000;

export const execInputSchema = z.object({
  command: z.string().min(1).describe("Shell command line to run"),
  workdir: z.string().optional().describe("Absolute working directory (default: the session's)"),
  env: z.record(z.string(), z.string()).optional().describe("Environment variables to add"),
  yieldMs: z.number().int().min(0).optional().describe("Return with status 'running' if the command takes longer than this (default 10000 ms, env PI_BASH_YIELD_MS; clamped to 10..120000)"),
  background: z.boolean().optional().describe("Start in the background and return at once"),
  timeout: z.number().positive().max(MAX_TIMEOUT_S).optional().describe(`Kill the command after this many seconds (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S})`),
  pty: z.boolean().optional().describe("Run in a pseudo-terminal (needs a client with the acp-terminal extension)"),
});

export type ExecInput = z.infer<typeof execInputSchema>;

export type ExecResult =
  | { status: "running"; sessionId: string; tail: string; note?: string }
  | {
      status: "completed" | "failed" | "killed" | "timed_out" | "lost";
      sessionId: string;
      exitCode: number | null;
      signal: string | null;
      durationMs: number | null;
      output: string;
      truncated: boolean;
      error?: string;
      note?: string;
    };

/**
 * `exec`: run a command, answer with its output when it finishes within `yieldMs`, otherwise
 * with `{status: "running", sessionId, tail}` and keep it running (see the `process` tool).
 * `sessionId` here is the run id, as in the exec tool design.
 */
export const execTool = defineTool<ExecInput, ExecResult>({
  name: "exec",
  description:
    "Run a shell command. Returns its output when it finishes within yieldMs; otherwise returns status 'running' " +
    "with a sessionId to use with the process tool (poll, log, write, kill). background: true returns at once.",
  schema: execInputSchema,
  async run(ctx, input) {
    const { manager, sessionId } = ctx;
    const request = {
      sessionId,
      command: input.command,
      ...(input.workdir ? { cwd: input.workdir } : {}),
      ...(input.env ? { env: input.env } : {}),
      ...(input.pty ? { pty: true } : {}),
      // Background runs take input through `process write`; foreground ones see end-of-file.
      ...(input.background ? { stdin: true } : {}),
      timeoutMs: Math.round((input.timeout ?? DEFAULT_TIMEOUT_S) * 1000),
      ...fromContext(ctx, "exec"),
    };
    const run = input.background
      ? await manager.start(request)
      : (await manager.run({ ...request, ...(input.yieldMs !== undefined ? { yieldMs: input.yieldMs } : {}) })).run;
    if (!isFinished(run.status)) {
      const tail = manager.tail(run.id, { maxChars: TAIL_CHARS });
      return {
        status: "running",
        sessionId: run.id,
        tail: tail.text,
        ...(run.status === "queued" ? { note: "queued: waiting for a free slot (concurrency limit)" } : {}),
      };
    }
    const { output, truncated, note } = outputFor(manager, run);
    return {
      status: run.status as Exclude<typeof run.status, "queued" | "running">,
      sessionId: run.id,
      exitCode: run.exitCode,
      signal: run.signal,
      durationMs: run.durationMs,
      output,
      truncated,
      ...(run.error ? { error: run.error } : {}),
      ...(note ? { note } : {}),
    };
  },
});
