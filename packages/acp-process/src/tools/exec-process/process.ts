import { signalNameSchema } from "acp-terminal/protocol";
import { z } from "zod";
import { ProcessError } from "../../base/errors.js";
import { derivedName, outputFor, runSummary } from "../core/format.js";
import { fitLines, logBytes, MAX_LOG_BYTES, poll, pollCursor } from "../core/process-poll.js";
import { budgetInputsCamel, budgetOf, fitEntries } from "../core/token-budget.js";
import { strictInput } from "../core/strict-input.js";
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, waitFor } from "../core/wait-for.js";
import { toolState } from "../core/tool-state.js";
import { defineTool, type ToolContext } from "../core/types.js";

const SNIPPET_CHARS = 200;

export const processInputSchema = strictInput({
  action: z.enum(["list", "poll", "log", "write", "kill", "clear", "remove", "wait"]),
  sessionId: z
    .string()
    .optional()
    .describe("The id returned by exec (required except for list and clear)"),
  data: z.string().optional().describe("write: text to send to stdin"),
  eof: z.boolean().optional().describe("write: close stdin after the data"),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "log: first line (0-based); omitted = the last `limit` lines. list: first session of the page (nextOffset of the previous page)",
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe("log: number of lines (default 200); list: sessions (default 50, at most 500)"),
  signal: signalNameSchema
    .optional()
    .describe("kill: signal name such as SIGINT (default: the client's kill)"),
  waitMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_MS)
    .optional()
    .describe(
      `wait: block up to this many ms (default ${DEFAULT_WAIT_MS}, at most ${MAX_WAIT_MS}) for what until says, then answer as poll with woke (exit, input, match, output or timeout)`,
    ),
  until: z
    .enum(["exit", "output"])
    .optional()
    .describe(
      "wait: what ends the wait (default exit). exit: the command's end, or sooner when it waits for input or its output matches pattern; output: any new output too",
    ),
  pattern: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe("wait: a regular expression; wake when new output matches it"),
  byteOffset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "log: read output bytes from this absolute offset instead of lines (any part of the output, spilled or not)",
    ),
  byteLimit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`log with byteOffset: most bytes read (default ${MAX_LOG_BYTES})`),
  ...budgetInputsCamel,
});

export type ProcessInput = z.infer<typeof processInputSchema>;

/**
 * `process`: manage runs started by `exec`. `poll` and `wait` return only what no answer of this
 * surface handed out yet (they continue where `exec`'s answer or the previous poll ended); `wait`
 * first blocks for the exit (or what `until`/`pattern` ask); `log` reads lines by offset/limit, or
 * bytes by offset; `clear` forgets finished runs; `remove` kills a running run and forgets it.
 */
export const processTool = defineTool<ProcessInput, Record<string, unknown>>({
  name: "process",
  description:
    "Manage background commands started by exec: list, poll (output not yet returned: continues where exec's answer or the last poll/wait ended), " +
    "wait (block until the command exits, up to waitMs; it wakes sooner when the command waits for input or its output matches pattern, and on any new output only with until 'output'; then answers as poll, saying what woke it), " +
    "log (older output: lines by offset/limit, or bytes by byteOffset), write (stdin), kill, clear (forget finished runs), remove (kill and forget).",
  schema: processInputSchema,
  async run(ctx, input) {
    const { manager, sessionId: owner } = ctx;
    switch (input.action) {
      case "list":
        return list(ctx, input);
      case "poll":
        return poll(manager, owner, requireId(input), budgetOf(input));
      case "wait":
        return wait(ctx, input);
      case "log":
        return log(ctx, input);
      case "write": {
        const id = requireId(input);
        await manager.write(id, input.data ?? "", { sessionId: owner, eof: input.eof ?? false });
        return { sessionId: id, written: (input.data ?? "").length, eof: input.eof ?? false };
      }
      case "kill":
        return kill(ctx, input);
      case "clear":
        return clear(ctx, input);
      case "remove": {
        const id = requireId(input);
        await manager.kill(id, { sessionId: owner });
        manager.remove(id, { sessionId: owner });
        toolState(manager).forget(id);
        return { sessionId: id, removed: true };
      }
    }
  },
});

/**
 * Only background sessions, as the exec design says: runs exec answered in the foreground are not
 * listed. Paged: `offset` and `limit` (newest first), and held to maxOutputTokens; `nextOffset`
 * while more remain, whichever of the two ended the page.
 */
function list({ manager, sessionId }: ToolContext, input: ProcessInput): Record<string, unknown> {
  const state = toolState(manager);
  const runs = manager.list({ sessionId, limit: 500 }).filter((run) => state.isBackground(run.id));
  const offset = input.offset ?? 0;
  const end = offset + Math.min(input.limit ?? 50, 500);
  const fitted = fitEntries(
    runs.slice(offset, end).map((run) => ({
      ...runSummary(run),
      sessionId: run.id,
      name: derivedName(run),
      tail: manager.tail(run.id, { maxChars: SNIPPET_CHARS }).text,
    })),
    budgetOf(input).maxTokens,
  );
  const next = offset + fitted.entries.length;
  return {
    processes: fitted.entries,
    total: runs.length,
    ...(next < runs.length ? { nextOffset: next } : {}),
    ...(fitted.omitted > 0
      ? {
          omittedProcesses: fitted.omitted,
          note: `${fitted.omitted} more sessions of this page did not fit in maxOutputTokens: ask again from nextOffset, or raise it`,
        }
      : {}),
  };
}

/** Blocks for what `until`/`pattern` ask (from where the last answer ended), then answers as poll. */
async function wait(
  { manager, sessionId }: ToolContext,
  input: ProcessInput,
): Promise<Record<string, unknown>> {
  const id = requireId(input);
  const { woke, match } = await waitFor(manager, id, {
    sessionId,
    since: { seq: pollCursor(manager, sessionId, id) },
    until: input.until ?? "exit",
    timeoutMs: input.waitMs ?? DEFAULT_WAIT_MS,
    ...(input.pattern !== undefined ? { pattern: input.pattern } : {}),
  });
  return {
    woke,
    ...(match !== undefined ? { match } : {}),
    ...(await poll(manager, sessionId, id, budgetOf(input))),
  };
}

/** Lines by offset/limit held to maxOutputTokens, or bytes by `byteOffset`. */
async function log(
  { manager, sessionId }: ToolContext,
  input: ProcessInput,
): Promise<Record<string, unknown>> {
  const id = requireId(input);
  if (input.byteOffset !== undefined) {
    return logBytes(manager, sessionId, id, input, budgetOf(input));
  }
  const view = await manager.lines(id, {
    sessionId,
    limit: input.limit ?? 200,
    ...(input.offset !== undefined ? { offset: input.offset } : {}),
  });
  const fitted = fitLines(view.lines, budgetOf(input));
  return {
    sessionId: id,
    status: view.run.status,
    lines: fitted.lines,
    offset: view.offset,
    totalLines: view.totalLines,
    droppedLines: view.droppedLines,
    ...(fitted.omittedLines > 0
      ? {
          omittedLines: fitted.omittedLines,
          note: `${fitted.omittedLines} lines did not fit in maxOutputTokens: read fewer at a time (offset/limit), or by byteOffset`,
        }
      : {}),
    ...(view.droppedLines > 0
      ? { droppedNote: `earlier lines are not kept by line; read them by byteOffset from 0` }
      : {}),
  };
}

async function kill(
  { manager, sessionId }: ToolContext,
  input: ProcessInput,
): Promise<Record<string, unknown>> {
  const id = requireId(input);
  const run = await manager.kill(id, {
    sessionId,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return {
    ...runSummary(run),
    sessionId: id,
    ...(await outputFor(manager, run, budgetOf(input), sessionId)),
  };
}

function clear({ manager, sessionId }: ToolContext, input: ProcessInput): Record<string, unknown> {
  if (input.sessionId) {
    manager.remove(input.sessionId, { sessionId });
    toolState(manager).forget(input.sessionId);
    return { cleared: 1 };
  }
  return { cleared: manager.clear({ sessionId }) };
}

function requireId(input: ProcessInput): string {
  if (!input.sessionId) {
    throw ProcessError.invalidParams(
      "sessionId",
      `the id returned by exec for action ${input.action}`,
      input.sessionId,
    );
  }
  return input.sessionId;
}
