import type { ContainmentMode } from "../host/types.js";

/** The key under `_meta` where every acp-terminal extension lives. */
export const ACP_TERMINAL_META_KEY = "acp-terminal";

/** Version of the extension set advertised in `clientCapabilities._meta["acp-terminal"]`. */
export const ACP_TERMINAL_EXTENSION_VERSION = 1;

/** Extension method names (the leading underscore marks them as non-standard in ACP). */
export const WRITE_METHOD = "_acp-terminal/write";
export const RESIZE_METHOD = "_acp-terminal/resize";
export const SIGNAL_METHOD = "_acp-terminal/signal";

export const EXTENSION_METHODS = [WRITE_METHOD, RESIZE_METHOD, SIGNAL_METHOD] as const;
export type ExtensionMethod = (typeof EXTENSION_METHODS)[number];

/** What `clientCapabilities._meta["acp-terminal"]` says this client supports. */
export interface AcpTerminalCapability {
  version: number;
  methods: string[];
  /** `terminal/output` results carry `_meta["acp-terminal"].totalBytes/droppedBytes`. */
  cursors: boolean;
  /**
   * `terminal/output` accepts `_meta["acp-terminal"].sinceByte` and then returns only the text from
   * that stream offset on, with `fromByte` (exact increments).
   */
  outputSince: boolean;
  /** `terminal/create` accepts `_meta["acp-terminal"].pty`. */
  pty: boolean;
  /** `terminal/create` accepts `_meta["acp-terminal"].stdin` and `_acp-terminal/write` works. */
  stdin: boolean;
  /**
   * What keeps a terminal's processes from outliving it (see the README): `"pid-namespace"` (its
   * descendants die with it even after `setsid`) or `"process-group"`; both with a watchdog.
   */
  containment: ContainmentMode;
}

export interface TerminalClientCapabilities {
  terminal: true;
  _meta: { [ACP_TERMINAL_META_KEY]: AcpTerminalCapability };
}

/**
 * The `clientCapabilities` to send in `initialize` when a TerminalHost is bound. Spread it into
 * your own capabilities: `{ fs: {...}, ...terminalClientCapabilities() }` (merge `_meta` yourself
 * if you advertise other `_meta` keys).
 */
export function terminalClientCapabilities(host?: object): TerminalClientCapabilities {
  // A host that knows PTYs cannot be opened here (node-pty failed to load) says `ptyAvailable: false`.
  const ptyAvailable = !(host && "ptyAvailable" in host && host.ptyAvailable === false);
  // Without a host that says otherwise, only the floor is promised.
  const containment = host && "containment" in host && host.containment === "pid-namespace" ? "pid-namespace" : "process-group";
  return {
    terminal: true,
    _meta: {
      [ACP_TERMINAL_META_KEY]: {
        version: ACP_TERMINAL_EXTENSION_VERSION,
        methods: [...EXTENSION_METHODS],
        cursors: true,
        outputSince: true,
        pty: ptyAvailable,
        stdin: true,
        containment,
      },
    },
  };
}

/**
 * Reads the acp-terminal capability from the `clientCapabilities` an agent received, or
 * undefined when the client did not advertise it (then use only the five ACP v1 methods).
 */
export function readTerminalCapability(clientCapabilities: unknown): AcpTerminalCapability | undefined {
  if (typeof clientCapabilities !== "object" || clientCapabilities === null) return undefined;
  const meta = (clientCapabilities as { _meta?: unknown })._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const capability = (meta as Record<string, unknown>)[ACP_TERMINAL_META_KEY];
  if (typeof capability !== "object" || capability === null) return undefined;
  const c = capability as Partial<AcpTerminalCapability>;
  if (typeof c.version !== "number") return undefined;
  return {
    version: c.version,
    methods: Array.isArray(c.methods) ? c.methods.filter((m): m is string => typeof m === "string") : [],
    cursors: c.cursors === true,
    outputSince: c.outputSince === true,
    pty: c.pty === true,
    stdin: c.stdin === true,
    containment: c.containment === "pid-namespace" ? "pid-namespace" : "process-group",
  };
}
