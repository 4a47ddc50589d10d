/**
 * The ACP v2 draft's agent-owned terminal updates, as this package sends them (the shapes of the
 * SDK's `experimental/v2` `TerminalUpdate` and `TerminalOutputChunk` session updates; declared
 * here so that acp-process does not tie its public types to a draft's generated schema).
 */

/** `terminal_update`: an upsert; omitted fields leave the client's stored value unchanged. */
export interface TerminalUpdate {
  sessionUpdate: "terminal_update";
  terminalId: string;
  command?: string | null;
  /** Absolute working directory. */
  cwd?: string | null;
  /** Character cells the command runs with (PTY runs). */
  size?: { cols: number; rows: number } | null;
  /** An authoritative replacement of the output: base64 bytes. */
  output?: { data: string } | null;
  /** A concrete object marks the terminal as exited. */
  exitStatus?: { exitCode?: number | null; signal?: string | null } | null;
  /** Controls the client may use now; `cancel: {}` permits `terminal/cancel`, `{}` permits none. */
  capabilities?: { cancel?: Record<string, never> | null } | null;
  /** acp-process's extension: `{"acp-process": {inputRequired}}` (see `inputMeta`). */
  _meta?: Record<string, unknown>;
}

/** `terminal_output_chunk`: bytes appended to the terminal's output, independently base64-encoded. */
export interface TerminalOutputChunk {
  sessionUpdate: "terminal_output_chunk";
  terminalId: string;
  data: string;
}

export type TerminalSessionUpdate = TerminalUpdate | TerminalOutputChunk;

/**
 * Sends one `session/update` notification (`{sessionId, update}`) to the client, e.g.
 * `(sessionId, update) => connection.client.notify("session/update", { sessionId, update })`.
 */
export type TerminalUpdateSender = (
  sessionId: string,
  update: TerminalSessionUpdate,
) => Promise<void>;
