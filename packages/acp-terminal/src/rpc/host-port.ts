import type {
  CreateTerminalParams,
  ExitStatus,
  OutputOptions,
  TerminalOutputSnapshot,
  TerminalOwner,
  WriteOptions,
} from "../host/types.js";

/**
 * The part of `TerminalHost` the binding calls. Structural, so a test double or a host wrapped
 * with policy fits too; a `TerminalHost` always does.
 */
export interface TerminalHostPort {
  create(
    owner: TerminalOwner,
    params: CreateTerminalParams,
    context?: { sessionCwd?: string },
  ): Promise<string>;
  output(owner: TerminalOwner, terminalId: string, options?: OutputOptions): TerminalOutputSnapshot;
  waitForExit(owner: TerminalOwner, terminalId: string): Promise<ExitStatus>;
  kill(owner: TerminalOwner, terminalId: string, signal?: string): Promise<ExitStatus>;
  release(owner: TerminalOwner, terminalId: string): Promise<void>;
  releaseAll(filter: { connectionId: string; sessionId?: string }): Promise<void>;
  write(
    owner: TerminalOwner,
    terminalId: string,
    data: string | Uint8Array,
    options?: WriteOptions,
  ): Promise<void>;
  resize(owner: TerminalOwner, terminalId: string, cols: number, rows: number): void;
  signal(owner: TerminalOwner, terminalId: string, signal: string): Promise<void> | void;
}
