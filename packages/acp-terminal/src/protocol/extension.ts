import { describeReceived } from "../core/errors.js";
import { z } from "zod";
import { MAX_PTY_DIMENSION } from "../host/validate.js";

/**
 * The `acp-terminal` wire extension, defined once: its method names, the capability a client
 * advertises in `clientCapabilities._meta["acp-terminal"]`, the `_meta` that `terminal/create`,
 * `terminal/kill` and `terminal/output` carry (cursors included), and which advertised flags and
 * methods each feature needs. The client side (src/rpc) serves it; the agent side (acp-process's
 * providers) imports it from `acp-terminal/protocol` and parses what it receives with these
 * schemas, so both apply the same rules.
 *
 * Adding a method: its name in EXTENSION_METHODS and its params in EXTENSION_PARAMS; the compiler
 * then asks for its handler (rpc/extension-handlers.ts); a new feature in EXTENSION_FEATURES
 * asks for it in every provider's capabilities.
 */

/** The key under `_meta` where every acp-terminal extension lives. */
export const ACP_TERMINAL_META_KEY = "acp-terminal";

/** Version of the extension set advertised in `clientCapabilities._meta["acp-terminal"]`. */
export const ACP_TERMINAL_EXTENSION_VERSION = 1;

/** Extension method names (the leading underscore marks them as non-standard in ACP). */
export const EXTENSION_METHODS = {
  write: "_acp-terminal/write",
  resize: "_acp-terminal/resize",
  signal: "_acp-terminal/signal",
} as const;
export type ExtensionMethodName = keyof typeof EXTENSION_METHODS;
export type ExtensionMethod = (typeof EXTENSION_METHODS)[ExtensionMethodName];
/** Every method's short name, in the order of EXTENSION_METHODS. */
export const EXTENSION_METHOD_NAMES: readonly ExtensionMethodName[] = Object.keys(
  EXTENSION_METHODS,
).filter((name): name is ExtensionMethodName => Object.hasOwn(EXTENSION_METHODS, name));

export const WRITE_METHOD = EXTENSION_METHODS.write;
export const RESIZE_METHOD = EXTENSION_METHODS.resize;
export const SIGNAL_METHOD = EXTENSION_METHODS.signal;

/** The largest PTY `cols`/`rows` the host accepts, on the wire as in the host. */
export { MAX_PTY_DIMENSION };

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
});
export type OutputCursors = z.infer<typeof outputCursorsSchema>;

/**
 * What `clientCapabilities._meta["acp-terminal"]` says a client supports. Read leniently: a flag
 * that is missing or not a boolean is false, a method name that is not a string is skipped, an
 * unknown containment is the floor; only `version` is required.
 */
export const terminalCapabilitySchema = z.object({
  version: z.number(),
  methods: z
    .array(z.unknown())
    .catch([])
    .transform((methods) =>
      methods.filter((method): method is string => typeof method === "string"),
    ),
  /** `terminal/output` results carry `_meta["acp-terminal"].totalBytes/droppedBytes`. */
  cursors: z.boolean().catch(false),
  /**
   * `terminal/output` accepts `_meta["acp-terminal"].sinceByte` and then returns only the text from
   * that stream offset on, with `fromByte` (exact increments).
   */
  outputSince: z.boolean().catch(false),
  /** `terminal/create` accepts `_meta["acp-terminal"].pty`. */
  pty: z.boolean().catch(false),
  /** `terminal/create` accepts `_meta["acp-terminal"].stdin` and `_acp-terminal/write` works. */
  stdin: z.boolean().catch(false),
  /**
   * What keeps a terminal's processes from outliving it (see the README): `"process-tree"` (its
   * descendants die with it even after `setsid`, and pids are the machine's), `"pid-namespace"`
   * (the same, but commands see namespace pids) or `"process-group"` (what leaves the group
   * survives the terminal); all with a watchdog for when the client dies.
   */
  containment: z.enum(["process-tree", "pid-namespace", "process-group"]).catch("process-group"),
});
export type AcpTerminalCapability = z.output<typeof terminalCapabilitySchema>;

const advertisingClientSchema = z.object({
  _meta: z.object({ [ACP_TERMINAL_META_KEY]: terminalCapabilitySchema }),
});

/**
 * Reads the acp-terminal capability from the `clientCapabilities` an agent received, or
 * undefined when the client did not advertise it (then use only the five ACP v1 methods).
 */
export function readTerminalCapability(
  clientCapabilities: unknown,
): AcpTerminalCapability | undefined {
  const parsed = advertisingClientSchema.safeParse(clientCapabilities);
  return parsed.success ? parsed.data._meta[ACP_TERMINAL_META_KEY] : undefined;
}

type CapabilityFlag = "cursors" | "outputSince" | "pty" | "stdin";

/** Each feature an agent can use, and the advertised flags and methods it needs (all of them). */
export const EXTENSION_FEATURES = {
  /** `output` carries `totalBytes`/`droppedBytes`, so increments are exact. */
  cursors: { flags: ["cursors"], methods: [] },
  /** `output` takes `{sinceByte}` and then returns only the text from that offset, with `fromByte`. */
  outputSince: { flags: ["cursors", "outputSince"], methods: [] },
  /** `write` to stdin is available (and `stdin: true` on create is honoured). */
  write: { flags: ["stdin"], methods: [EXTENSION_METHODS.write] },
  /** PTY terminals can be requested and resized. */
  pty: { flags: ["pty"], methods: [EXTENSION_METHODS.resize] },
  /** `signal(name)` delivers a chosen signal to the process group. */
  signal: { flags: [], methods: [EXTENSION_METHODS.signal] },
} as const satisfies Record<
  string,
  { flags: readonly CapabilityFlag[]; methods: readonly ExtensionMethod[] }
>;
export type ExtensionFeature = keyof typeof EXTENSION_FEATURES;

/** Which features are usable: one boolean per entry of EXTENSION_FEATURES. */
export type ExtensionFeatures = { readonly [F in ExtensionFeature]: boolean };

/** The features a capability grants (none without one, or with a version below 1). */
export function extensionFeatures(
  capability: AcpTerminalCapability | undefined,
): ExtensionFeatures {
  const has = (feature: ExtensionFeature): boolean => {
    if (capability === undefined || capability.version < 1) {
      return false;
    }
    const needs: { flags: readonly CapabilityFlag[]; methods: readonly string[] } =
      EXTENSION_FEATURES[feature];
    return (
      needs.flags.every((flag) => capability[flag]) &&
      needs.methods.every((method) => capability.methods.includes(method))
    );
  };
  return Object.freeze({
    cursors: has("cursors"),
    outputSince: has("outputSince"),
    write: has("write"),
    pty: has("pty"),
    signal: has("signal"),
  });
}
