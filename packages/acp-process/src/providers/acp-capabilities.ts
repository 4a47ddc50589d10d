import { ACP_TERMINAL_META_KEY, RESIZE_METHOD, SIGNAL_METHOD, WRITE_METHOD, readTerminalCapability } from "acp-terminal";
import type { ProviderCapabilities } from "./types.js";

/** Key under which our host advertises and carries its extensions (acp-terminal's constant). */
export const EXTENSION_KEY = ACP_TERMINAL_META_KEY;

export const EXTENSION_METHODS = {
  write: WRITE_METHOD,
  resize: RESIZE_METHOD,
  signal: SIGNAL_METHOD,
} as const;

/** What an agent learns about a client's terminals from its `initialize` capabilities. */
export interface ClientTerminalSupport {
  /** `clientCapabilities.terminal`: the five core calls. */
  terminal: boolean;
  /** Extension version, when advertised. */
  extensionVersion?: number;
  capabilities: ProviderCapabilities;
}

/**
 * Reads `clientCapabilities` (as received in `initialize`). Anything missing or malformed means
 * "not supported": the extension is opt-in and never assumed.
 */
export function detectClientTerminalSupport(clientCapabilities: unknown): ClientTerminalSupport {
  const caps = isRecord(clientCapabilities) ? clientCapabilities : {};
  const terminal = caps["terminal"] === true;
  const ext = readTerminalCapability(clientCapabilities);
  const version = ext?.version;
  const methods = ext?.methods ?? [];
  const usable = terminal && version !== undefined && version >= 1;
  return {
    terminal,
    ...(version !== undefined ? { extensionVersion: version } : {}),
    capabilities: Object.freeze({
      cursors: usable && ext?.cursors === true,
      outputSince: usable && ext?.cursors === true && ext.outputSince,
      write: usable && ext?.stdin === true && methods.includes(EXTENSION_METHODS.write),
      pty: usable && ext?.pty === true && methods.includes(EXTENSION_METHODS.resize),
      signal: usable && methods.includes(EXTENSION_METHODS.signal),
    }),
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
