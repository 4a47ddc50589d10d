import { z } from "zod";
import { ProcessError } from "../../base/errors.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import { strictInput } from "../core/strict-input.js";
import { budgetInputs, budgetOf, budgetedRange, budgetFields } from "../core/token-budget.js";
import { defineTool, fromContext, type ToolContext } from "../core/types.js";
import {
  clampYield,
  DEFAULT_EXEC_YIELD_TIME_MS,
  DEFAULT_WRITE_YIELD_TIME_MS,
  readOutputHint,
  unifiedAnswer,
  UnifiedSessions,
} from "./unified-sessions.js";

/**
 * What every exec_command runs with, as Codex's unified exec sets it: no pager (a pager would wait
 * for keys), no colour, a plain terminal, a UTF-8 locale. Codex's own marker `CODEX_CI` is left out.
 */
export const UNIFIED_EXEC_ENV: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: "1",
  TERM: "dumb",
  LANG: "C.UTF-8",
  LC_CTYPE: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  COLORTERM: "",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GH_PAGER: "cat",
});

const SESSIONS = Symbol("acp-process unified exec sessions");
const sessionsOf = (manager: ProcessManager): UnifiedSessions =>
  manager.attached(SESSIONS, () => new UnifiedSessions());

const yieldInput = (defaultMs: number) =>
  z
    .number()
    .min(0)
    .optional()
    .describe(
      `How long to wait (in milliseconds) for output before yielding (default ${defaultMs}; clamped to 250..30000, 5000..300000 for an empty write_stdin). A command that waits for input yields as soon as that is seen`,
    );

export const execCommandInputSchema = strictInput({
  cmd: z.string().min(1).describe("Shell command to execute."),
  workdir: z
    .string()
    .optional()
    .describe("Working directory for the command (absolute; default: the session's)"),
  shell: z.string().min(1).optional().describe("Shell binary to launch (default: bash)"),
  login: z
    .boolean()
    .optional()
    .describe(
      "True runs the shell with -l semantics (login: profile files); false disables them. Default true",
    ),
  tty: z
    .boolean()
    .optional()
    .describe("True allocates a PTY for the command; false or omitted uses plain pipes"),
  yield_time_ms: yieldInput(DEFAULT_EXEC_YIELD_TIME_MS),
  ...budgetInputs,
  sandbox_permissions: z
    .enum(["use_default", "with_additional_permissions", "require_escalated"])
    .optional()
    .describe(
      "Codex's sandbox request: use_default runs the command where the provider runs it; the others are refused unless the agent's policy allows elevation",
    ),
  justification: z.string().optional().describe("Codex's approval question; accepted and not used"),
  prefix_rule: z
    .array(z.string())
    .optional()
    .describe("Codex's approval prefix; accepted and not used"),
});

export const writeStdinInputSchema = strictInput({
  session_id: z.number().int().describe("Identifier of the running unified exec session."),
  chars: z.string().optional().describe("Bytes to write to stdin (may be empty to poll)."),
  yield_time_ms: yieldInput(DEFAULT_WRITE_YIELD_TIME_MS),
  ...budgetInputs,
});

export const readOutputInputSchema = strictInput({
  session_id: z.number().int().describe("The session id exec_command answered (running or exited)"),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Absolute byte offset to read from (default 0)"),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      "Most bytes read (default 1048576); past max_output_tokens the head and tail are kept",
    ),
  ...budgetInputs,
});

/** Codex's `exec_command`: runs `cmd` in a shell and answers with its output or a session id. */
export const execCommandTool = defineTool({
  name: "exec_command",
  description:
    "Runs a command in a PTY (tty: true) or pipes, returning output or a session ID for ongoing interaction.",
  schema: execCommandInputSchema,
  async run(ctx, input) {
    refuseEscalation(ctx, input.sandbox_permissions);
    const { manager, sessionId } = ctx;
    const startedAtMs = performance.now();
    const shell = input.shell ?? "bash";
    const run = await manager.start({
      sessionId,
      command: shell,
      args: [input.login === false ? "-c" : "-lc", input.cmd],
      ...(input.workdir !== undefined ? { cwd: input.workdir } : {}),
      env: { ...UNIFIED_EXEC_ENV },
      ...(input.tty ? { pty: true } : {}),
      stdin: true,
      // As Codex: a session runs until it ends or is killed; the yield bounds the call, not the run.
      timeoutMs: 0,
      ...fromContext(ctx, "exec_command"),
    });
    const id = sessionsOf(manager).open(run.id, sessionId);
    const now = await manager.wait(run.id, {
      timeoutMs: clampYield(input.yield_time_ms ?? DEFAULT_EXEC_YIELD_TIME_MS, false),
      untilInput: true,
    });
    return unifiedAnswer(
      manager,
      sessionsOf(manager),
      id,
      sessionId,
      now,
      budgetOf(input),
      startedAtMs,
    );
  },
});

/** Codex's `write_stdin`: writes `chars` (empty: a poll) and answers with the output since the last answer. */
export const writeStdinTool = defineTool({
  name: "write_stdin",
  description: "Writes characters to an existing unified exec session and returns recent output.",
  schema: writeStdinInputSchema,
  async run({ manager, sessionId }, input) {
    const startedAtMs = performance.now();
    const sessions = sessionsOf(manager);
    const session = sessions.get(input.session_id, sessionId, true);
    const chars = input.chars ?? "";
    if (chars.length > 0) {
      await manager.write(session.runId, chars, { sessionId });
    }
    const now = await manager.wait(session.runId, {
      sessionId,
      timeoutMs: clampYield(input.yield_time_ms ?? DEFAULT_WRITE_YIELD_TIME_MS, chars.length === 0),
      untilInput: true,
    });
    return unifiedAnswer(
      manager,
      sessions,
      input.session_id,
      sessionId,
      now,
      budgetOf(input),
      startedAtMs,
    );
  },
});

/** Reads any byte range of a session's output by absolute offset, running or exited (the cut's read call). */
export const readOutputTool = defineTool({
  name: "read_output",
  description:
    "Reads a unified exec session's output by absolute byte offset (any part, also after it exited), e.g. what an answer left out.",
  schema: readOutputInputSchema,
  async run({ manager, sessionId }, input) {
    const session = sessionsOf(manager).get(input.session_id, sessionId, false);
    const view = await manager.wholeCharacterBytes(session.runId, {
      sessionId,
      offset: input.offset ?? 0,
      limit: Math.min(input.limit ?? 1024 * 1024, 1024 * 1024),
    });
    const next = view.offset + view.byteLength;
    const cut = await budgetedRange(manager, session.runId, {
      sessionId,
      from: view.offset,
      to: next,
      ...budgetOf(input),
      hint: readOutputHint(input.session_id),
    });
    return {
      session_id: input.session_id,
      output: cut.text,
      offset: view.offset,
      next_offset: next,
      total_bytes: view.totalBytes,
      ...budgetFields(cut, "snake"),
    };
  },
});

/** The unified exec surface: Codex's two tools, and the read of what a cut left out. */
export const unifiedExecTools = [execCommandTool, writeStdinTool, readOutputTool] as const;

function refuseEscalation(ctx: ToolContext, permissions: string | undefined): void {
  if (permissions !== undefined && permissions !== "use_default" && !ctx.execPolicy?.elevated) {
    throw new ProcessError(
      "unsupported",
      `sandbox_permissions ${JSON.stringify(permissions)} is not allowed here: commands run where the terminal provider runs them, with no other permissions to grant (ExecPolicy.elevated); use use_default`,
    );
  }
}
