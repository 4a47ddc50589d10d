import { signalNameSchema } from "acp-terminal/protocol";
import { z } from "zod";
import { ProcessError } from "../errors.js";
import { isFinished, type RunItem } from "../model/run-record.js";
import { derivedName, outputFor, runSummary } from "./format.js";
import type { ProcessManager } from "../runs/manager/manager.js";
import { strictInput } from "./strict-input.js";
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, waitForActivity } from "./wait-for.js";
import { toolState } from "./tool-state.js";
import { defineTool, type ToolContext } from "./types.js";

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
      `wait: block up to this many ms for new output or the exit, then answer as poll (default ${DEFAULT_WAIT_MS})`,
    ),
});

export type ProcessInput = z.infer<typeof processInputSchema>;

/**
 * `process`: manage runs started by `exec`. `poll` returns only what is new since the previous
 * poll of that run; `log` reads lines by offset/limit; `clear` forgets finished runs; `remove`
 * kills a running run and forgets it.
 */
export const processTool = defineTool<ProcessInput, Record<string, unknown>>({
  name: "process",
  description:
    "Manage background commands started by exec: list, poll (new output since the last poll), wait (block up to waitMs for new output or the exit, then poll), " +
    "log (lines by offset/limit), write (stdin), kill, clear (forget finished runs), remove (kill and forget).",
  schema: processInputSchema,
  async run(ctx, input) {
    const { manager, sessionId: owner } = ctx;
    const state = toolState(manager);
    switch (input.action) {
      case "list": {
        // Only background sessions, as the exec design says: runs exec answered in the foreground are not listed.
        const runs = manager
          .list({ sessionId: owner, limit: 500 })
          .filter((run) => state.isBackground(run.id));
        // Paged: `offset` and `limit` (newest first); `nextOffset` while more remain.
        const offset = input.offset ?? 0;
        const end = offset + Math.min(input.limit ?? 50, 500);
        return {
          processes: runs.slice(offset, end).map((run) => ({
            ...runSummary(run),
            sessionId: run.id,
            name: derivedName(run),
            tail: manager.tail(run.id, { maxChars: SNIPPET_CHARS }).text,
          })),
          total: runs.length,
          ...(end < runs.length ? { nextOffset: end } : {}),
        };
      }
      case "poll":
        return poll(manager, owner, requireId(input));
      case "wait": {
        const id = requireId(input);
        const woke = await waitForActivity(manager, id, {
          sessionId: owner,
          sinceSeq: state.cursor(id),
          timeoutMs: input.waitMs ?? DEFAULT_WAIT_MS,
        });
        return { woke, ...(await poll(manager, owner, id)) };
      }
      case "log": {
        const id = requireId(input);
        const view = await manager.lines(id, {
          sessionId: owner,
          limit: input.limit ?? 200,
          ...(input.offset !== undefined ? { offset: input.offset } : {}),
        });
        return {
          sessionId: id,
          status: view.run.status,
          lines: view.lines,
          offset: view.offset,
          totalLines: view.totalLines,
          droppedLines: view.droppedLines,
        };
      }
      case "write": {
        const id = requireId(input);
        await manager.write(id, input.data ?? "", { sessionId: owner, eof: input.eof ?? false });
        return { sessionId: id, written: (input.data ?? "").length, eof: input.eof ?? false };
      }
      case "kill": {
        const id = requireId(input);
        const run = await manager.kill(id, {
          sessionId: owner,
          ...(input.signal ? { signal: input.signal } : {}),
        });
        return { ...runSummary(run), sessionId: id, ...outputFor(manager, run, 2000) };
      }
      case "clear":
        return clear(ctx, input);
      case "remove": {
        const id = requireId(input);
        await manager.kill(id, { sessionId: owner });
        manager.remove(id, { sessionId: owner });
        state.forget(id);
        return { sessionId: id, removed: true };
      }
    }
  },
});

/**
 * What is new since this run's previous poll. At most `pendingMaxOutputChars` (env
 * OPENCLAW_/ZERO_BASH_PENDING_MAX_OUTPUT_CHARS) of it: when more is pending, the newest part is
 * returned and the older part is skipped here (still readable with `log`); `note` says so and
 * `skippedBytes` counts the skipped UTF-8 bytes, so a reader that adds up what polls return keeps
 * an exact count.
 */
async function poll(
  manager: ProcessManager,
  owner: string,
  id: string,
): Promise<Record<string, unknown>> {
  const state = toolState(manager);
  const cap = manager.limits.pendingMaxOutputChars;
  let cursor = state.cursor(id);
  let output = "";
  let skippedBytes = 0;
  let missedItems = 0;
  // Pages up to the items that existed at the first read (bounded by the store's retention),
  // keeping only the newest `cap` characters; the next poll starts where this one stopped.
  let end: number | undefined;
  for (;;) {
    const page = await manager.read(id, {
      sessionId: owner,
      sinceSeq: cursor,
      limit: 1000,
      maxChars: cap + 1,
    });
    end ??= page.run.nextSeq;
    missedItems += page.missedItems;
    output += page.items.map(itemText).join("");
    if (output.length > cap) {
      const cut = characterStart(output, output.length - cap);
      skippedBytes += Buffer.byteLength(output.slice(0, cut));
      output = output.slice(cut);
    }
    cursor = page.nextSeq;
    if (page.items.length === 0 || cursor >= end) {
      break;
    }
  }
  state.setCursor(id, cursor);
  const run = manager.get(id, { sessionId: owner });
  const note =
    skippedBytes > 0
      ? `more than ${cap} characters were pending (OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS); this is the newest ${output.length}, the older pending ${skippedBytes} bytes were skipped here (read them with action log)`
      : undefined;
  return {
    sessionId: id,
    status: run.status,
    output,
    ...(note ? { note, skippedBytes } : {}),
    ...(missedItems > 0 ? { missedItems } : {}),
    ...(isFinished(run.status)
      ? { exitCode: run.exitCode, signal: run.signal, error: run.error }
      : {}),
  };
}

/** `index`, moved forward off the second half of a surrogate pair so no character is split. */
function characterStart(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}

function itemText(item: RunItem): string {
  if (item.kind === "output") {
    return item.text;
  }
  if (item.kind === "notice") {
    return `\n${item.text}\n`;
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- watcher hit items are written by output-log.ts as JSON.stringify({ event, match })
    const { event, match } = JSON.parse(item.text) as { event: string; match: string };
    return `\n[watch ${event}] ${match}\n`;
  } catch {
    return `\n${item.text}\n`;
  }
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
