import { extensionFeatures, readTerminalCapability } from "acp-terminal/protocol";
import { z } from "zod";
import type { ProviderCapabilities } from "./types.js";

/** The acp-terminal extension's `_meta` key and method names, as acp-terminal defines them. */
export { ACP_TERMINAL_META_KEY as EXTENSION_KEY, EXTENSION_METHODS } from "acp-terminal/protocol";

/** What an agent learns about a client's terminals from its `initialize` capabilities. */
export interface ClientTerminalSupport {
  /** `clientCapabilities.terminal`: the five core calls. */
  terminal: boolean;
  /** Extension version, when advertised. */
  extensionVersion?: number;
  capabilities: ProviderCapabilities;
}

/** `clientCapabilities.terminal: true` (ACP v1): the client offers the five core calls. */
const terminalClientSchema = z.object({ terminal: z.literal(true) });

/**
 * Reads `clientCapabilities` (as received in `initialize`). Anything missing or malformed means
 * "not supported": the extension is opt-in and never assumed.
 */
export function detectClientTerminalSupport(clientCapabilities: unknown): ClientTerminalSupport {
  const terminal = terminalClientSchema.safeParse(clientCapabilities).success;
  const ext = readTerminalCapability(clientCapabilities);
  const version = ext?.version;
  return {
    terminal,
    ...(version !== undefined ? { extensionVersion: version } : {}),
    capabilities: extensionFeatures(terminal ? ext : undefined),
  };
}
