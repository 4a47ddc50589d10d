/**
 * The ACP v2 draft's agent-owned terminal updates: the `terminal_update` and
 * `terminal_output_chunk` session updates (the SDK's `experimental/v2` `TerminalUpdate` and
 * `TerminalOutputChunk`, with their tag). Declared once, here, for every package that sends or
 * reads them (acp-process's publisher, the conformance agent, the CLI), so that none ties its
 * public types to a draft's generated schema; `test/v2-terminal-types.test.ts` checks that they
 * stay assignable both ways to the SDK's.
 */

/** Extension data any object of the draft may carry. */
interface WithMeta {
  _meta?: Record<string, unknown> | null;
}

/** Character cells a PTY command runs with. */
export interface TerminalSize extends WithMeta {
  cols: number;
  rows: number;
}

/** A concrete object marks the terminal as exited. */
export interface TerminalExitStatus extends WithMeta {
  exitCode?: number | null;
  signal?: string | null;
}

/** `terminal_update`: an upsert; omitted fields leave the client's stored value unchanged. */
export interface TerminalUpdate extends WithMeta {
  sessionUpdate: "terminal_update";
  terminalId: string;
  command?: string | null;
  /** Absolute working directory. */
  cwd?: string | null;
  size?: TerminalSize | null;
  /** An authoritative replacement of the output: base64 bytes. */
  output?: ({ data: string } & WithMeta) | null;
  exitStatus?: TerminalExitStatus | null;
  /** Controls the client may use now; `cancel: {}` permits `terminal/cancel`, `{}` permits none. */
  capabilities?: ({ cancel?: WithMeta | null } & WithMeta) | null;
}

/** `terminal_output_chunk`: bytes appended to the terminal's output, independently base64-encoded. */
export interface TerminalOutputChunk extends WithMeta {
  sessionUpdate: "terminal_output_chunk";
  terminalId: string;
  data: string;
}

export type TerminalSessionUpdate = TerminalUpdate | TerminalOutputChunk;
