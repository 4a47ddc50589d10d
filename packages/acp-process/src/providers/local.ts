import type {
  CreateTerminalParams,
  ExitStatus,
  TerminalOutputSnapshot,
  TerminalOwner,
} from "acp-terminal";
import { processGroupUsage, type ResourceUsage } from "./proc-usage.js";
import type {
  ProviderCapabilities,
  ProviderCreateParams,
  ProviderExitStatus,
  ProviderOutput,
  ProviderOutputOptions,
  TerminalProvider,
} from "./types.js";

/** acp-terminal's own types: the host this provider drives is (shaped like) its TerminalHost. */
export type { TerminalOwner };

/**
 * The slice of acp-terminal's `TerminalHost` the local provider uses. Structural, so any host with
 * these methods works (the real one, or a host wrapped by an embedding application).
 */
export interface TerminalHostLike {
  create(owner: TerminalOwner, params: CreateTerminalParams): Promise<string>;
  /** `options.sinceByte`: exact increments (acp-terminal ≥ outputSince); a host that ignores it sends whole snapshots. */
  output(
    owner: TerminalOwner,
    terminalId: string,
    options?: { sinceByte?: number },
  ): TerminalOutputSnapshot | Promise<TerminalOutputSnapshot>;
  waitForExit(owner: TerminalOwner, terminalId: string): Promise<ExitStatus>;
  kill(owner: TerminalOwner, terminalId: string, signal?: string): Promise<ExitStatus | void>;
  release(owner: TerminalOwner, terminalId: string): Promise<void> | void;
  write?(
    owner: TerminalOwner,
    terminalId: string,
    data: string | Uint8Array,
    options?: { eof?: boolean },
  ): Promise<void> | void;
  resize?(
    owner: TerminalOwner,
    terminalId: string,
    cols: number,
    rows: number,
  ): Promise<void> | void;
  signal?(owner: TerminalOwner, terminalId: string, signal: string): Promise<void> | void;
  /** `pid` is the command's process-group id (acp-terminal's `TerminalInfo`). */
  info?(terminalId: string): { pid?: number } | undefined;
}

export interface LocalProviderOptions {
  /** Owner under which terminals are created. Default `{connectionId: "local", sessionId: "local"}`. */
  owner?: TerminalOwner;
}

/**
 * Runs commands in an in-process TerminalHost: for agents whose client lacks the terminal
 * capability, for CLIs and for tests. Every capability of the host is available.
 */
export class LocalTerminalProvider implements TerminalProvider {
  readonly kind = "local";
  readonly capabilities: ProviderCapabilities;
  private readonly owner: TerminalOwner;

  constructor(
    private readonly host: TerminalHostLike,
    options: LocalProviderOptions = {},
  ) {
    this.owner = options.owner ?? { connectionId: "local", sessionId: "local" };
    this.capabilities = Object.freeze({
      cursors: true,
      // A host that ignores sinceByte answers with whole snapshots (no fromByte), which the reader handles.
      outputSince: true,
      write: typeof host.write === "function",
      // A host that could not load its PTY backend says `ptyAvailable: false`.
      pty:
        typeof host.resize === "function" &&
        !("ptyAvailable" in host && host.ptyAvailable === false),
      signal: typeof host.signal === "function",
    });
  }

  create(params: ProviderCreateParams): Promise<string> {
    const env = params.env
      ? Object.entries(params.env).map(([name, value]) => ({ name, value }))
      : undefined;
    return this.host.create(this.owner, {
      command: params.command,
      args: params.args ?? null,
      env: env ?? null,
      cwd: params.cwd ?? null,
      outputByteLimit: params.outputByteLimit ?? null,
      ...(params.pty !== undefined ? { pty: params.pty } : {}),
      ...(params.stdin !== undefined ? { stdin: params.stdin } : {}),
    });
  }

  async output(terminalId: string, options?: ProviderOutputOptions): Promise<ProviderOutput> {
    const sinceByte = options?.sinceByte;
    const snapshot = await (sinceByte === undefined
      ? this.host.output(this.owner, terminalId)
      : this.host.output(this.owner, terminalId, { sinceByte }));
    return {
      output: snapshot.output,
      truncated: snapshot.truncated,
      exitStatus: snapshot.exitStatus ?? null,
      totalBytes: snapshot.totalBytes,
      droppedBytes: snapshot.droppedBytes,
      ...(sinceByte !== undefined && typeof snapshot.fromByte === "number"
        ? { fromByte: snapshot.fromByte }
        : {}),
    };
  }

  async waitForExit(terminalId: string): Promise<ProviderExitStatus> {
    const status = await this.host.waitForExit(this.owner, terminalId);
    return { exitCode: status.exitCode, signal: status.signal };
  }

  async kill(terminalId: string): Promise<void> {
    await this.host.kill(this.owner, terminalId);
  }

  async release(terminalId: string): Promise<void> {
    await this.host.release(this.owner, terminalId);
  }

  async write(
    terminalId: string,
    data: string | Uint8Array,
    options?: { eof?: boolean },
  ): Promise<void> {
    await this.host.write!(this.owner, terminalId, data, options);
  }

  async resize(terminalId: string, cols: number, rows: number): Promise<void> {
    await this.host.resize!(this.owner, terminalId, cols, rows);
  }

  async signal(terminalId: string, signal: string): Promise<void> {
    await this.host.signal!(this.owner, terminalId, signal);
  }

  /** From /proc for the terminal's process group (Linux); null elsewhere or once it has exited. */
  async resourceUsage(terminalId: string): Promise<ResourceUsage | null> {
    const pgid = this.host.info?.(terminalId)?.pid;
    return pgid === undefined ? null : processGroupUsage(pgid);
  }
}
