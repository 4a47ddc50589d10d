import { describeReceived } from "../core/errors.js";
import { z } from "zod";
import { MAX_PTY_DIMENSION } from "../host/validate.js";
import type { ExtensionMethodName } from "./methods.js";

/**
 * The `acp-terminal` wire extension, defined once: its method names, the capability a client
 * advertises in `clientCapabilities._meta["acp-terminal"]`, the `_meta` that `terminal/create`,
 * `terminal/kill` and `terminal/output` carry (cursors included), and which advertised flags and
 * methods each feature needs. The client side (src/rpc) serves it; the agent side (acp-process's
 * providers) imports it from `acp-terminal/protocol` and parses what it receives with these
 * schemas, so both apply the same rules.
 *
 * This file holds the params; the names are in methods.ts and the capability in capability.ts.
 * Adding a method: its name in EXTENSION_METHODS and its params in EXTENSION_PARAMS; the compiler
 * then asks for its handler (rpc/extension-handlers.ts); a new feature in EXTENSION_FEATURES
 * asks for it in every provider's capabilities.
 */

export {
  ACP_TERMINAL_EXTENSION_VERSION,
  ACP_TERMINAL_META_KEY,
  EXTENSION_METHOD_NAMES,
  EXTENSION_METHODS,
  RESIZE_METHOD,
  SIGNAL_METHOD,
  WRITE_METHOD,
  type ExtensionMethod,
  type ExtensionMethodName,
} from "./methods.js";
export {
  EXTENSION_FEATURES,
  extensionFeatures,
  readTerminalCapability,
  terminalCapabilitySchema,
  type AcpTerminalCapability,
  type ExtensionFeature,
  type ExtensionFeatures,
} from "./capability.js";

/** The largest PTY `cols`/`rows` the host accepts, on the wire as in the host. */
export { MAX_PTY_DIMENSION };

/** Signals an agent may send with `_acp-terminal/signal` or choose for `terminal/kill`. */
/** Most notices a `terminal/output` result carries, and most characters of each (see outputCursorsSchema). */
export const MAX_OUTPUT_NOTICES = 8;
export const MAX_NOTICE_CHARS = 1000;

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
const terminalDimension = z
  .int(dimensionError)
  .min(1, dimensionError)
  .max(MAX_PTY_DIMENSION, dimensionError);

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
    .int({
      error: (issue) =>
        `expected a non-negative integer (a stream offset in bytes), received ${describeReceived(issue.input)}`,
    })
    .min(0, {
      error: (issue) =>
        `expected a non-negative integer (a stream offset in bytes), received ${describeReceived(issue.input)}`,
    })
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
    dataBase64: z
      .string()
      .regex(BASE64, "expected standard base64 (A-Z a-z 0-9 + /, = padding)")
      .optional(),
    eof: z.boolean().optional(),
  })
  .superRefine((params, ctx) => {
    if (params.data !== undefined && params.dataBase64 !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["dataBase64"],
        message: "give either data or dataBase64, not both",
      });
    } else if (
      params.data === undefined &&
      params.dataBase64 === undefined &&
      params.eof !== true
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["data"],
        message: "give data, dataBase64 or eof: true",
      });
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

/** The params of each extension method. */
export const EXTENSION_PARAMS = {
  write: writeParamsSchema,
  resize: resizeParamsSchema,
  signal: signalParamsSchema,
} as const satisfies { [M in ExtensionMethodName]: z.ZodType };
/** What a caller sends to method `M`. */
export type ExtensionParamsInput<M extends ExtensionMethodName> = z.input<
  (typeof EXTENSION_PARAMS)[M]
>;
/** What a handler of method `M` receives, validated. */
export type ExtensionParams<M extends ExtensionMethodName> = z.output<(typeof EXTENSION_PARAMS)[M]>;

/**
 * `terminal/output` result `_meta["acp-terminal"]` (cursors): bytes written since start, bytes
 * dropped from the beginning, and with `sinceByte` the offset `output` starts at. A reader keeps
 * cursors only when both counts are numbers, and `fromByte` only when it is one.
 */
export const outputCursorsSchema = z.object({
  totalBytes: z.number(),
  droppedBytes: z.number(),
  fromByte: z.number().optional().catch(undefined),
  /** The client's remarks about the command (a lost connection), never part of `output`. */
  notices: z.array(z.string()).max(MAX_OUTPUT_NOTICES).optional().catch(undefined),
});
export type OutputCursors = z.infer<typeof outputCursorsSchema>;

// The ACP v2 draft's terminal updates, on this entry point too (declared in v2-terminal.ts).
export type {
  TerminalExitStatus,
  TerminalOutputChunk,
  TerminalSessionUpdate,
  TerminalSize,
  TerminalUpdate,
} from "./v2-terminal.js";
