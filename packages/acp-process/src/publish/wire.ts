/**
 * The ACP v2 draft's agent-owned terminal updates, as this package sends them: their shapes are
 * declared once, in acp-terminal/protocol (not tied to the SDK's generated draft schema).
 */
import type { TerminalSessionUpdate } from "acp-terminal/protocol";

export type {
  TerminalOutputChunk,
  TerminalSessionUpdate,
  TerminalUpdate,
} from "acp-terminal/protocol";

/**
 * Sends one `session/update` notification (`{sessionId, update}`) to the client, e.g.
 * `(sessionId, update) => connection.client.notify("session/update", { sessionId, update })`.
 */
export type TerminalUpdateSender = (
  sessionId: string,
  update: TerminalSessionUpdate,
) => Promise<void>;
