import { z } from "zod";
import { ACP_TERMINAL_META_KEY, EXTENSION_METHODS, type ExtensionMethod } from "./methods.js";

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
  /**
   * Where commands run: `kind` (`local`, `ssh`, `docker`, `podman`, `docker-image`,
   * `podman-image`, `devcontainer`), the `target` as configured, and where known the `os`
   * (`uname -s`: `Linux`, `Darwin`) and the `shell` a command line runs in, so an agent writes
   * the right syntax. Missing: not said (treat as local).
   */
  executor: z
    .object({
      kind: z.string(),
      target: z.string(),
      os: z.string().optional(),
      shell: z.string().optional(),
    })
    .optional()
    .catch(undefined),
  /**
   * Where commands may write (see the README): `"read-only"` (nowhere but a private /tmp),
   * `"workspace-write"`, `"off"`, or `"unavailable"` (one was asked for and cannot be had: no
   * command runs); `network` says whether they reach the network. Missing or unknown: `"off"`.
   */
  sandbox: z
    .object({
      mode: z.enum(["read-only", "workspace-write", "off", "unavailable"]),
      network: z.boolean(),
    })
    .catch({ mode: "off", network: true }),
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
