import { signalNameSchema } from "acp-terminal";
import { z } from "zod";
import { ProcessError } from "../errors.js";
import { isFinished } from "../runs/types.js";
import { outputFor, runSummary } from "./format.js";
import { toolState } from "./tool-state.js";
import { defineTool, type ToolContext } from "./types.js";

const SNIPPET_CHARS = 200;

export const processInputSchema = z.object({
  action: z.enum(["list", "poll", "log", "write", "kill", "clear", "remove"]),
  sessionId: z.string().optional().describe("The id returned by exec (required except for list and clear)"),
  data: z.string().optional().describe("write: text to send to stdin"),
  eof: z.boolean().optional().describe("write: close stdin after the data"),
  offset: z.number().int().min(0).optional().describe("log: first line (0-based); omitted = the last `limit` lines"),
  limit: z.number().int().min(1).max(10_000).optional().describe("log: number of lines (default 200)"),
  signal: signalNameSchema.optional().describe("kill: signal name such as SIGINT (default: the client's kill)"),
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
    "Manage background commands started by exec: list, poll (new output since the last poll), log (lines by offset/limit), " +
    "write (stdin), kill, clear (forget finished runs), remove (kill and forget).",
  schema: processInputSchema,
  async run(ctx, input) {
    const { manager, sessionId: owner } = ctx;
    const state = toolState(manager);
    switch (input.action) {
      case "list":
        return {
          processes: manager.list({ sessionId: owner, limit: input.limit ?? 50 }).map((run) => ({
            ...runSummary(run),
            sessionId: run.id,
            tail: manager.tail(run.id, { maxChars: SNIPPET_CHARS }).text,
          })),
        };
      case "poll": {
        const id = requireId(input);
        const page = await manager.read(id, { sessionId: owner, sinceSeq: state.cursor(id), maxChars: manager.limits.maxOutputChars });
        state.setCursor(id, page.nextSeq);
        return {
          sessionId: id,
          status: page.run.status,
          output: page.items.map((item) => (item.kind === "output" ? item.text : `\n${item.text}\n`)).join(""),
          ...(page.missedItems > 0 ? { missedItems: page.missedItems } : {}),
          more: !page.done && page.nextSeq < page.run.nextSeq,
          ...(isFinished(page.run.status) ? { exitCode: page.run.exitCode, signal: page.run.signal, error: page.run.error } : {}),
        };
      }
      case "log": {
        const id = requireId(input);
        const view = await manager.lines(id, { sessionId: owner, limit: input.limit ?? 200, ...(input.offset !== undefined ? { offset: input.offset } : {}) });
        return { sessionId: id, status: view.run.status, lines: view.lines, offset: view.offset, totalLines: view.totalLines, droppedLines: view.droppedLines };
      }
      case "write": {
        const id = requireId(input);
        await manager.write(id, input.data ?? "", { sessionId: owner, eof: input.eof ?? false });
        return { sessionId: id, written: (input.data ?? "").length, eof: input.eof ?? false };
      }
      case "kill": {
        const id = requireId(input);
        const run = await manager.kill(id, { sessionId: owner, ...(input.signal ? { signal: input.signal } : {}) });
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

function clear({ manager, sessionId }: ToolContext, input: ProcessInput): Record<string, unknown> {
  if (input.sessionId) {
    manager.remove(input.sessionId, { sessionId });
    toolState(manager).forget(input.sessionId);
    return { cleared: 1 };
  }
  return { cleared: manager.clear({ sessionId }) };
}

function requireId(input: ProcessInput): string {
  if (!input.sessionId) throw ProcessError.invalidParams("sessionId", `the id returned by exec for action ${input.action}`, input.sessionId);
  return input.sessionId;
}
