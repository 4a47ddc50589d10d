import { signalNameSchema } from "acp-terminal";
import { z } from "zod";
import { ProcessError } from "../errors.js";
import type { RunSnapshot } from "../runs/types.js";
import { toolState } from "./tool-state.js";
import { fitItems, lastBytes } from "./byte-budget.js";
import { defineTool, fromContext } from "./types.js";

const MAX_LIMIT = 500;
const DEFAULT_TIMEOUT_S = 120;
const DEFAULT_MAX_OUTPUT_BYTES = 30_000;
const CUT_NOTE = "this item was larger than max_output_bytes and is cut; read the rest with action log";
const SNIPPET_CHARS = 400;
const STREAM_NOTE = "stdout and stderr arrive merged through ACP terminals; the stream filter cannot separate them";

const watchSchema = z.object({
  regex: z.string().min(1).max(512),
  event: z.string().max(100).optional(),
  once: z.boolean().optional(),
  scope: z.enum(["line", "stream"]).optional().describe("line: each complete line; stream: raw output, across chunk boundaries"),
});

export const shellInputSchema = z.object({
  action: z.enum(["spawn", "poll", "log", "kill", "send_keys"]).optional().describe("Omitted: run the command once and return its output"),
  command: z.string().min(1).optional(),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  id: z.string().optional().describe("Run id from spawn (poll, log, kill, send_keys)"),
  since_seq: z.number().int().min(0).optional().describe("poll: first item wanted; pass the previous next_seq"),
  limit: z.number().int().min(1).optional().describe(`poll: items, log: lines (default 100; larger values are capped at ${MAX_LIMIT})`),
  offset: z.number().int().min(0).optional().describe("log: first line; omitted = the last lines"),
  stream: z.enum(["stdout", "stderr", "combined"]).optional(),
  watch: z.array(watchSchema).max(16).optional().describe("spawn: regex watchers; hits are reported by poll"),
  max_output_bytes: z.number().int().min(100).max(1_000_000).optional().describe(`Output bytes returned (default ${DEFAULT_MAX_OUTPUT_BYTES})`),
  timeout_secs: z.number().positive().max(86_400).optional().describe(`Kill after this many seconds (one-shot default ${DEFAULT_TIMEOUT_S})`),
  keys: z.array(z.union([z.string(), z.object({ text: z.string() })])).max(200).optional().describe('send_keys: key names or text, e.g. ["y", "Enter"], ["C-c"]'),
  signal: signalNameSchema.optional().describe("kill: signal name (default: the client's kill)"),
  pty: z.boolean().optional(),
});

export type ShellInput = z.infer<typeof shellInputSchema>;

/** Cuts `text` to its last `maxBytes` UTF-8 bytes (on a character boundary). */
function status(run: RunSnapshot): Record<string, unknown> {
  return {
    id: run.id,
    status: run.status,
    exit_code: run.exitCode,
    signal: run.signal,
    duration_ms: run.durationMs,
    ...(run.error ? { error: run.error } : {}),
  };
}

/**
 * The shell action API: `spawn | poll | log | kill | send_keys` with `since_seq`/`next_seq`
 * cursors, watchers and snippets. Without `action` it is a one-shot run returning the output.
 */
export const shellTool = defineTool<ShellInput, Record<string, unknown>>({
  name: "shell",
  description:
    "Run shell commands. No action: run once and return output. spawn: start in the background (optionally with regex watchers); " +
    "poll: new output items since since_seq (returns next_seq); log: lines; kill; send_keys: type keys into the command.",
  schema: shellInputSchema,
  async run(ctx, input) {
    const { manager, sessionId } = ctx;
    const state = toolState(manager);
    const maxBytes = input.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const note = input.stream && input.stream !== "combined" ? { stream_note: STREAM_NOTE } : {};
    switch (input.action) {
      case undefined:
      case "spawn": {
        if (!input.command) throw ProcessError.invalidParams("command", "a command line", input.command);
        const started = await manager.start({
          sessionId,
          command: input.command,
          ...(input.cwd ? { cwd: input.cwd } : {}),
          ...(input.env ? { env: input.env } : {}),
          ...(input.pty ? { pty: true } : {}),
          ...(input.watch ? { watch: input.watch } : {}),
          ...(input.action === "spawn" ? { stdin: true } : {}),
          timeoutMs: input.timeout_secs !== undefined ? Math.round(input.timeout_secs * 1000) : input.action ? 0 : DEFAULT_TIMEOUT_S * 1000,
          ...fromContext(ctx, "shell"),
        });
        if (input.action === "spawn") return { ...status(started), next_seq: 0 };
        const run = await manager.wait(started.id);
        const out = lastBytes(manager.tail(run.id, { maxChars: maxBytes }).text, maxBytes);
        return { ...status(run), output: out.text, truncated: out.truncated || run.outputBytes > maxBytes, ...note };
      }
      case "poll": {
        const id = requireId(input);
        const since = input.since_seq ?? 0;
        const page = await manager.read(id, { sessionId, sinceSeq: since, limit: capped(input.limit), maxChars: maxBytes }).catch((error: unknown) => {
          // Name the tool's field, not the manager's option.
          if (error instanceof ProcessError && error.code === "invalid_params") throw new ProcessError("invalid_params", error.message.replace("sinceSeq", "since_seq").replace("nextSeq", "next_seq"));
          throw error;
        });
        // maxChars counts UTF-16 units of whole items; the byte budget is exact.
        const fitted = fitItems(page.items, maxBytes, page.nextSeq);
        return {
          ...status(page.run),
          items: fitted.items.map((item) => ({ seq: item.seq, kind: item.kind, text: item.text })),
          next_seq: fitted.nextSeq,
          ...(fitted.cut ? { cut_item: { seq: fitted.cut.seq, omitted_bytes: fitted.cut.omittedBytes, note: CUT_NOTE } } : {}),
          ...(page.missedItems > 0 ? { missed_items: page.missedItems } : {}),
          done: page.done && fitted.nextSeq >= page.nextSeq,
          watch_hits: state.hitsSince(id, since),
          snippet: manager.tail(id, { maxChars: SNIPPET_CHARS }).text,
          ...note,
        };
      }
      case "log": {
        const id = requireId(input);
        const view = await manager.lines(id, { sessionId, limit: capped(input.limit), ...(input.offset !== undefined ? { offset: input.offset } : {}) });
        return { ...status(view.run), lines: view.lines, offset: view.offset, total_lines: view.totalLines, dropped_lines: view.droppedLines, ...note };
      }
      case "kill": {
        const id = requireId(input);
        const run = await manager.kill(id, { sessionId, ...(input.signal ? { signal: input.signal } : {}) });
        return { ...status(run), snippet: manager.tail(id, { maxChars: SNIPPET_CHARS }).text };
      }
      case "send_keys": {
        const id = requireId(input);
        if (!input.keys || input.keys.length === 0) throw ProcessError.invalidParams("keys", 'a list of key names or text, e.g. ["y", "Enter"]', input.keys);
        await manager.sendKeys(id, input.keys, { sessionId });
        return { id, sent: input.keys.length };
      }
    }
  },
});

function capped(limit: number | undefined): number {
  return Math.min(limit ?? 100, MAX_LIMIT);
}

function requireId(input: ShellInput): string {
  if (!input.id) throw ProcessError.invalidParams("id", `the run id returned by spawn for action ${input.action}`, input.id);
  return input.id;
}
