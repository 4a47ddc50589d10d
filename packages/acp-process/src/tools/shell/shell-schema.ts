import { signalNameSchema } from "acp-terminal/protocol";
import { z } from "zod";
import { strictInput } from "../core/strict-input.js";
import { keepInput, maxOutputTokensInput } from "../core/token-budget.js";
import { DEFAULT_WAIT_MS, MAX_WAIT_MS } from "../core/wait-for.js";

export const MAX_LIMIT = 500;
export const DEFAULT_TIMEOUT_S = 120;
export const DEFAULT_MAX_OUTPUT_BYTES = 30_000;
export const CUT_NOTE =
  "this item was larger than max_output_bytes and is cut; read the rest with action log and offset (lines)";
export const SNIPPET_CHARS = 400;
export const STREAM_NOTE =
  "stdout and stderr arrive merged through ACP terminals; the stream filter cannot separate them";
const CURSOR =
  "Cursor: items are numbered from 1; the answer's next_seq is the seq of the last item it returned (or since_seq when none), " +
  "and since_seq returns items strictly after it. Passing back next_seq or the last seq you saw is the same thing. 0: from the start. " +
  "Omitted: poll and wait continue after the last poll or wait of this run (each item is handed out once), log starts from the start.";

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
    byte_offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "log: read output bytes from this absolute offset instead of items (any part of the output, spilled or not)",
      ),
    byte_limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("log with byte_offset: most bytes read (default 1048576)"),
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
        `wait: block up to this many seconds (default ${DEFAULT_WAIT_MS / 1000}) for what until says`,
      ),
    until: z
      .enum(["exit", "output"])
      .optional()
      .describe(
        "wait: what ends the wait (default exit). exit: the run's end, or sooner when it waits for input or a watcher matches; output: any new item too",
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
    max_output_tokens: maxOutputTokensInput,
    keep: keepInput.describe(
      "What cut output keeps (the one-shot output, log by byte_offset or lines): head_tail (default), head or tail. Pages of items are never cut: they end, and next_seq continues",
    ),
  },
  { aliases: { run_id: "id" } },
);

export type ShellInput = z.infer<typeof shellInputSchema>;
