import { describeReceived } from "../core/errors.js";
import { z } from "zod";
import { MAX_PTY_DIMENSION } from "../host/validate.js";

/**
 * Zod schemas for the acp-terminal extensions. Exported so the agent side can validate what it
 * sends with the same rules the client applies when it receives.
 */

/** Signals an agent may send with `_acp-terminal/signal` or choose for `terminal/kill`. */
export const SUPPORTED_SIGNALS = [
  "SIGINT",
  "SIGTERM",
  "SIGKILL",
  "SIGHUP",
  "SIGQUIT",
  "SIGUSR1",
  "SIGUSR2",
  "SIGSTOP",
  "SIGCONT",
  "SIGTSTP",
  "SIGWINCH",
  "SIGALRM",
] as const;
export type SupportedSignal = (typeof SUPPORTED_SIGNALS)[number];

export const signalNameSchema = z.enum(SUPPORTED_SIGNALS, {
  error: (issue) =>
    `expected one of ${SUPPORTED_SIGNALS.join(", ")}, received ${describeReceived(issue.input)}`,
});

/** The host's bound (`MAX_PTY_DIMENSION`), so the wire and the host accept the same sizes. */
const dimensionError = {
  error: (issue: { input?: unknown }) =>
    `expected an integer from 1 to ${MAX_PTY_DIMENSION}, received ${describeReceived(issue.input)}`,
};
const terminalDimension = z.int(dimensionError).min(1, dimensionError).max(MAX_PTY_DIMENSION, dimensionError);

export const ptySizeSchema = z.object({
  cols: terminalDimension.optional(),
  rows: terminalDimension.optional(),
});

const metaSchema = z.record(z.string(), z.unknown()).nullish();
const idSchema = z.string().min(1);

/** What every extension method is scoped by, like the v1 methods: the session and the terminal. */
const terminalScopeSchema = z.object({
  sessionId: idSchema,
  terminalId: idSchema,
  _meta: metaSchema,
});

/** `terminal/create` `_meta["acp-terminal"]`: run in a PTY, keep stdin open. Unknown keys are ignored. */
export const createTerminalMetaSchema = z.object({
  pty: z.union([z.boolean(), ptySizeSchema]).optional(),
  stdin: z.boolean().optional(),
});
export type CreateTerminalMeta = z.infer<typeof createTerminalMetaSchema>;

/** `terminal/kill` `_meta["acp-terminal"]`: the first signal to send (default SIGTERM). */
export const killTerminalMetaSchema = z.object({
  signal: signalNameSchema.optional(),
});
export type KillTerminalMeta = z.infer<typeof killTerminalMetaSchema>;

/**
 * `terminal/output` `_meta["acp-terminal"]`: `sinceByte` asks for exact increments, only the
 * text from that stream offset on (usually the previous read's `totalBytes`).
 */
export const outputTerminalMetaSchema = z.object({
  sinceByte: z
    .int({ error: (issue) => `expected a non-negative integer (a stream offset in bytes), received ${describeReceived(issue.input)}` })
    .min(0, { error: (issue) => `expected a non-negative integer (a stream offset in bytes), received ${describeReceived(issue.input)}` })
    .optional(),
});
export type OutputTerminalMeta = z.infer<typeof outputTerminalMetaSchema>;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * `_acp-terminal/write`: `data` is UTF-8 text, `dataBase64` raw bytes; at most one of them.
 * `eof: true` closes stdin after the write (alone, it just closes stdin).
 */
export const writeParamsSchema = terminalScopeSchema
  .extend({
    data: z.string().optional(),
    dataBase64: z.string().regex(BASE64, "expected standard base64 (A-Z a-z 0-9 + /, = padding)").optional(),
    eof: z.boolean().optional(),
  })
  .superRefine((params, ctx) => {
    if (params.data !== undefined && params.dataBase64 !== undefined) {
      ctx.addIssue({ code: "custom", path: ["dataBase64"], message: "give either data or dataBase64, not both" });
    } else if (params.data === undefined && params.dataBase64 === undefined && params.eof !== true) {
      ctx.addIssue({ code: "custom", path: ["data"], message: "give data, dataBase64 or eof: true" });
    }
  });
export type WriteParams = z.infer<typeof writeParamsSchema>;

/** `_acp-terminal/resize`: PTY terminals only. */
export const resizeParamsSchema = terminalScopeSchema.extend({
  cols: terminalDimension,
  rows: terminalDimension,
});
export type ResizeParams = z.infer<typeof resizeParamsSchema>;

/** `_acp-terminal/signal`: deliver a signal to the command's process group. */
export const signalParamsSchema = terminalScopeSchema.extend({
  signal: signalNameSchema,
});
export type SignalParams = z.infer<typeof signalParamsSchema>;

/** Every extension method answers with an empty object. */
export type ExtensionResult = Record<string, never>;
