import { signalNameSchema } from "acp-terminal/protocol";
import { z } from "zod";
import { ProcessError } from "../errors.js";
import type { ProcessManager } from "../runs/manager/manager.js";
import type { RunItem } from "../model/run-record.js";
import type { RunSnapshot } from "../model/run-events.js";
import { toolState } from "./tool-state.js";
import { fitItems, lastBytes } from "./byte-budget.js";
import { strictInput } from "./strict-input.js";
import { defineTool, fromContext, type ToolContext } from "./types.js";
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, waitForActivity } from "./wait-for.js";

const MAX_LIMIT = 500;
const DEFAULT_TIMEOUT_S = 120;
const DEFAULT_MAX_OUTPUT_BYTES = 30_000;
const CUT_NOTE =
  "this item was larger than max_output_bytes and is cut; read the rest with action log and offset (lines)";
const SNIPPET_CHARS = 400;
const STREAM_NOTE =
  "stdout and stderr arrive merged through ACP terminals; the stream filter cannot separate them";
const CURSOR =
  "Cursor: items are numbered from 1; the answer's next_seq is the seq of the last item it returned (or since_seq when none), " +
  "and since_seq returns items strictly after it. Passing back next_seq or the last seq you saw is the same thing. Omitted or 0: from the start.";

const watchSchema = strictInput({
  regex: z.string().min(1).max(512),
  event: z.string().max(100).optional(),
  once: z.boolean().optional(),
  scope: z
    .enum(["line", "stream"])
    .optional()
    .describe("line: each complete line; stream: raw output, across chunk boundaries"),
});

export const shellInputSchema = strictInput(
  {
    action: z
      .enum(["spawn", "poll", "log", "kill", "send_keys", "wait"])
      .optional()
      .describe("Omitted: run the command once and return its output"),
    command: z
      .string()
      .min(1)
      .optional()
      .describe("Required for spawn and for a one-shot run (no action)"),
    cwd: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    id: z
      .string()
      .min(1)
      .optional()
      .describe("Run id from spawn (poll, log, kill, send_keys, wait)"),
    session_id: z
      .string()
      .optional()
      .describe("The calling session (runs are scoped to it); any other value is refused"),
    background: z
      .boolean()
      .optional()
      .describe(
        "spawn: default true (return at once); false: wait for the run to end, as a one-shot run",
      ),
    since_seq: z.number().int().min(0).optional().describe(`poll, log, wait. ${CURSOR}`),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        `poll, log (items), log with offset (lines): default 100; larger values are capped at ${MAX_LIMIT}`,
      ),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("log: read lines from this line (0-based) instead of items"),
    stream: z.enum(["stdout", "stderr", "combined"]).optional(),
    watch: z
      .array(watchSchema)
      .max(16)
      .optional()
      .describe("spawn: regex watchers; each hit is kept as an event item"),
    max_output_bytes: z
      .number()
      .int()
      .min(100)
      .max(1_000_000)
      .optional()
      .describe(
        `spawn/one-shot: output bytes the run keeps (later output is not kept; default: no cap). poll/log/wait: bytes of item text in the answer (default ${DEFAULT_MAX_OUTPUT_BYTES})`,
      ),
    timeout_secs: z
      .number()
      .positive()
      .max(86_400)
      .optional()
      .describe(
        `Kill after this many seconds (default: none for background spawn, ${DEFAULT_TIMEOUT_S} otherwise)`,
      ),
    wait_secs: z
      .number()
      .min(0)
      .max(MAX_WAIT_MS / 1000)
      .optional()
      .describe(
        `wait: block up to this many seconds for new items (output, watcher events) or the exit (default ${DEFAULT_WAIT_MS / 1000})`,
      ),
    keys: z
      .array(z.union([z.string(), strictInput({ text: z.string() })]))
      .max(200)
      .optional()
      .describe(
        'send_keys: key names or text, e.g. ["y", "Enter"], ["C-c"]; Enter is \\r in a PTY, \\n on a pipe',
      ),
    signal: signalNameSchema.optional().describe("kill: signal name (default: the client's kill)"),
    pty: z.boolean().optional(),
  },
  { aliases: { run_id: "id" } },
);

export type ShellInput = z.infer<typeof shellInputSchema>;

function status(run: RunSnapshot): Record<string, unknown> {
  const capped = run.cappedBytes ?? 0;
  return {
    id: run.id,
    status: run.status,
    exit_code: run.exitCode,
    signal: run.signal,
    duration_ms: run.durationMs,
    started_at: run.startedAtMs === null ? null : new Date(run.startedAtMs).toISOString(),
    ended_at: run.endedAtMs === null ? null : new Date(run.endedAtMs).toISOString(),
    // Output the run did not keep: past max_output_bytes, or dropped by the client before it was read.
    truncated: capped > 0 || run.lostBytes > 0 || run.lostUnknown,
    ...(capped > 0 ? { capped_bytes: capped } : {}),
    ...(run.error ? { error: run.error } : {}),
  };
}

/** An item as the shell surface numbers it (from 1) and shows it; event items are `{event, match}`. */
function shown(item: RunItem): Record<string, unknown> {
  if (item.kind !== "event") {
    return { seq: item.seq + 1, kind: item.kind, text: item.text };
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- watcher hit items are written by output-log.ts as JSON.stringify({ event, match })
    const { event, match } = JSON.parse(item.text) as { event: string; match: string };
    return { seq: item.seq + 1, kind: "event", event, match };
  } catch {
    return { seq: item.seq + 1, kind: "event", text: item.text };
  }
}

/**
 * The shell action API: `spawn | poll | log | kill | send_keys | wait` with `since_seq`/`next_seq`
 * cursors, watchers and snippets. Without `action` it is a one-shot run returning the output.
 */
export const shellTool = defineTool<ShellInput, Record<string, unknown>>({
  name: "shell",
  description:
    "Run shell commands. No action: run once and return output. spawn: start in the background (optionally with regex watchers); " +
    "poll: new items after since_seq (returns next_seq) and a snippet; log: items after since_seq (or lines with offset); " +
    "wait: block up to wait_secs for new items or the exit, then answer as poll; kill; send_keys: type keys into the command.",
  schema: shellInputSchema,
  async run(ctx, input) {
    const { manager, sessionId } = ctx;
    // Attached before the first run starts, so it sees every watcher hit.
    toolState(manager);
    if (input.session_id !== undefined && input.session_id !== sessionId) {
      throw ProcessError.invalidParams(
        "session_id",
        `this session's id ${JSON.stringify(sessionId)} (runs are scoped to the calling session), or no session_id`,
        input.session_id,
      );
    }
    const note = input.stream && input.stream !== "combined" ? { stream_note: STREAM_NOTE } : {};
    switch (input.action) {
      case undefined:
      case "spawn":
        return { ...(await spawn(ctx, input)), ...note };
      case "poll":
      case "log":
      case "wait": {
        const id = requireId(input);
        const since = input.since_seq ?? 0;
        if (input.action === "log" && input.offset !== undefined) {
          const view = await manager.lines(id, {
            sessionId,
            limit: capped(input.limit),
            offset: input.offset,
          });
          return {
            ...status(view.run),
            lines: view.lines,
            offset: view.offset,
            total_lines: view.totalLines,
            dropped_lines: view.droppedLines,
            ...note,
          };
        }
        if (input.action === "wait") {
          const woke = await waitForActivity(manager, id, {
            sessionId,
            sinceSeq: since,
            timeoutMs: Math.round((input.wait_secs ?? DEFAULT_WAIT_MS / 1000) * 1000),
          });
          return { woke, ...(await page(manager, id, sessionId, input, since, true)), ...note };
        }
        return {
          ...(await page(manager, id, sessionId, input, since, input.action === "poll")),
          ...note,
        };
      }
      case "kill": {
        const id = requireId(input);
        const run = await manager.kill(id, {
          sessionId,
          ...(input.signal ? { signal: input.signal } : {}),
        });
        return { ...status(run), snippet: manager.tail(id, { maxChars: SNIPPET_CHARS }).text };
      }
      case "send_keys": {
        const id = requireId(input);
        if (!input.keys || input.keys.length === 0) {
          throw ProcessError.invalidParams(
            "keys",
            'a list of key names or text, e.g. ["y", "Enter"]',
            input.keys,
          );
        }
        await manager.sendKeys(id, input.keys, { sessionId });
        return { id, sent: input.keys.length };
      }
    }
  },
});

/** One-shot run, `spawn` (returns at once) and `spawn` with `background: false` (waits, as one-shot). */
async function spawn(ctx: ToolContext, input: ShellInput): Promise<Record<string, unknown>> {
  const { manager, sessionId } = ctx;
  if (!input.command) {
    throw ProcessError.invalidParams("command", "a command line", input.command);
  }
  const waits = input.action === undefined || input.background === false;
  const started = await manager.start({
    sessionId,
    command: input.command,
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(input.env ? { env: input.env } : {}),
    ...(input.pty ? { pty: true } : {}),
    ...(input.watch ? { watch: input.watch } : {}),
    ...(input.max_output_bytes !== undefined ? { maxOutputBytes: input.max_output_bytes } : {}),
    ...(input.action === "spawn" ? { stdin: true } : {}),
    // A call that waits is bounded; a background run runs until it ends unless told otherwise.
    timeoutMs:
      input.timeout_secs !== undefined
        ? Math.round(input.timeout_secs * 1000)
        : waits
          ? DEFAULT_TIMEOUT_S * 1000
          : 0,
    ...fromContext(ctx, "shell"),
  });
  if (!waits) {
    return { ...status(started), next_seq: 0 };
  }
  const run = await manager.wait(started.id);
  const budget = input.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const out = lastBytes(manager.tail(run.id, { maxChars: budget }).text, budget);
  return {
    ...status(run),
    output: out.text,
    truncated: out.truncated || run.outputBytes > budget || status(run).truncated === true,
    ...(input.action === "spawn" ? { next_seq: 0 } : {}),
  };
}

/** The poll/log/wait answer: items strictly after `since` (shell numbering), within the byte budget. */
async function page(
  manager: ProcessManager,
  id: string,
  sessionId: string,
  input: ShellInput,
  since: number,
  withSnippet: boolean,
): Promise<Record<string, unknown>> {
  const budget = input.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  // Shell seq n is the manager's item n - 1: "strictly after n" is the manager's "from n".
  const read = await manager
    .read(id, { sessionId, sinceSeq: since, limit: capped(input.limit), maxChars: budget })
    .catch((error: unknown) => {
      // Name the tool's field, not the manager's option.
      if (error instanceof ProcessError && error.code === "invalid_params") {
        throw new ProcessError(
          "invalid_params",
          `Invalid since_seq: expected a seq from 0 to the run's last seq (pass next_seq, or the last seq you saw), received ${since}`,
        );
      }
      throw error;
    });
  // maxChars counts UTF-16 units of whole items; the byte budget is exact.
  const fitted = fitItems(read.items, budget, read.nextSeq);
  return {
    ...status(read.run),
    items: fitted.items.map(shown),
    next_seq: fitted.nextSeq,
    ...(fitted.cut
      ? {
          cut_item: {
            seq: fitted.cut.seq + 1,
            omitted_bytes: fitted.cut.omittedBytes,
            note: CUT_NOTE,
          },
        }
      : {}),
    ...(read.missedItems > 0 ? { missed_items: read.missedItems } : {}),
    done: read.done && fitted.nextSeq >= read.nextSeq,
    ...(withSnippet
      ? {
          watch_hits: toolState(manager)
            .hitsSince(id, since)
            .map((hit) => ({ ...hit, seq: hit.seq + 1 })),
          snippet: manager.tail(id, { maxChars: SNIPPET_CHARS }).text,
        }
      : {}),
  };
}

function capped(limit: number | undefined): number {
  return Math.min(limit ?? 100, MAX_LIMIT);
}

function requireId(input: ShellInput): string {
  if (!input.id) {
    throw ProcessError.invalidParams(
      "id",
      `the run id returned by spawn for action ${input.action} (as id or run_id)`,
      input.id,
    );
  }
  return input.id;
}
