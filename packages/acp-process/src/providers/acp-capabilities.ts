import type { ProviderCapabilities } from "./types.js";

/** Key under which our host advertises and carries its extensions. */
export const EXTENSION_KEY = "acp-terminal";

export const EXTENSION_METHODS = {
  write: "_acp-terminal/write",
  resize: "_acp-terminal/resize",
  signal: "_acp-terminal/signal",
} as const;

/** What an agent learns about a client's terminals from its `initialize` capabilities. */
export interface ClientTerminalSupport {
  /** `clientCapabilities.terminal`: the five core calls. */
  terminal: boolean;
  /** Extension version, when advertised. */
  extensionVersion?: number;
  capabilities: ProviderCapabilities;
}

interface AdvertisedExtension {
  version?: unknown;
  methods?: unknown;
  cursors?: unknown;
  outputSince?: unknown;
  pty?: unknown;
  stdin?: unknown;
}

/**
 * Reads `clientCapabilities` (as received in `initialize`). Anything missing or malformed means
 * "not supported": the extension is opt-in and never assumed.
 */
export function detectClientTerminalSupport(clientCapabilities: unknown): ClientTerminalSupport {
  const caps = isRecord(clientCapabilities) ? clientCapabilities : {};
  const terminal = caps["terminal"] === true;
  const meta = isRecord(caps["_meta"]) ? caps["_meta"] : {};
  const ext: AdvertisedExtension = isRecord(meta[EXTENSION_KEY]) ? (meta[EXTENSION_KEY] as AdvertisedExtension) : {};
  const version = typeof ext.version === "number" ? ext.version : undefined;
  const methods = Array.isArray(ext.methods) ? ext.methods.filter((m): m is string => typeof m === "string") : [];
  const usable = terminal && version !== undefined && version >= 1;
  return {
    terminal,
    ...(version !== undefined ? { extensionVersion: version } : {}),
    capabilities: Object.freeze({
      cursors: usable && ext.cursors === true,
      outputSince: usable && ext.cursors === true && ext.outputSince === true,
      write: usable && ext.stdin === true && methods.includes(EXTENSION_METHODS.write),
      pty: usable && ext.pty === true && methods.includes(EXTENSION_METHODS.resize),
      signal: usable && methods.includes(EXTENSION_METHODS.signal),
    }),
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
