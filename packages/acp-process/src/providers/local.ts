import type {
  CreateTerminalParams,
  ExitStatus,
  TerminalOutputSnapshot,
  TerminalOwner,
} from "acp-terminal";
import { processGroupUsage, type ResourceUsage } from "./proc-usage.js";
import { probeInputWait, type InputWait } from "./input-probe.js";
import { loginShellEnvironment, type LoginEnvironmentOptions } from "./login-environment.js";
import type {
  ProviderCapabilities,
  ProviderCreateParams,
  ProviderExitStatus,
  ProviderOutput,
  ProviderOutputOptions,
  OutputStream,
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
  /** Output events (raw bytes as read), for pushed output (`stream`). */
  on?(
    event: "output",
    listener: (event: { terminalId: string; owner: TerminalOwner; data: Uint8Array }) => void,
  ): unknown;
  /**
   * Each append to a terminal's buffer, with the chunk itself in `data` when `writtenChunks` (a
   * view valid during the call only): pushed output without the copy `output` events make of
   * every chunk.
   */
  on?(
    event: "written",
    listener: (event: { terminalId: string; owner: TerminalOwner; data?: Uint8Array }) => void,
  ): unknown;
  /** Whether `written` events carry their chunk in `data` (acp-terminal's TerminalHost does). */
  readonly writtenChunks?: boolean;
  /** The host's remarks about a command (acp-terminal's `notice` event), for pushed output. */
  on?(
    event: "notice",
    listener: (event: { terminalId: string; owner: TerminalOwner; text: string }) => void,
  ): unknown;
  /** Read access to a terminal's retained bytes. */
  outputReader?(terminalId: string):
    | {
        /** Whole characters from `sinceByte` on (an incomplete last one is held back). */
        bytesSince(sinceByte: number): { bytes: Uint8Array; fromByte: number };
        /** The incomplete last character's bytes that `bytesSince` holds back. */
        pendingTail(): Uint8Array;
      }
    | undefined;
  /** Defined for PTY terminals (their output is read rendered, not as raw bytes). */
  screenReader?(terminalId: string): unknown;
}

export interface LocalProviderOptions {
  /** Owner under which terminals are created. Default `{connectionId: "local", sessionId: "local"}`. */
  owner?: TerminalOwner;
  /**
   * Commands get the user's login-shell environment (nvm, pyenv, direnv: see
   * `loginShellEnvironment`), snapshotted on the first command and cached, under the variables a
   * start gives (so an authorize hook sees them as the request's). Default off.
   */
  loginEnvironment?: boolean | LoginEnvironmentOptions;
}

/**
 * Runs commands in an in-process TerminalHost: for agents whose client lacks the terminal
 * capability, for CLIs and for tests. Every capability of the host is available.
 */
export class LocalTerminalProvider implements TerminalProvider {
  readonly kind = "local";
  readonly capabilities: ProviderCapabilities;
  private readonly owner: TerminalOwner;
  private readonly loginEnvironment: LoginEnvironmentOptions | undefined;
  private loginEnvironmentFailed = false;
  /** Where each streamed terminal's bytes go (one host listener serves them all). */
  private readonly sinks = new Map<
    string,
    { onBytes: (bytes: Uint8Array) => void; onNotice?: ((text: string) => void) | undefined }
  >();
  private listening = false;

  constructor(
    private readonly host: TerminalHostLike,
    options: LocalProviderOptions = {},
  ) {
    this.owner = options.owner ?? { connectionId: "local", sessionId: "local" };
    this.loginEnvironment =
      options.loginEnvironment === true
        ? {}
        : options.loginEnvironment === false
          ? undefined
          : options.loginEnvironment;
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

  async create(params: ProviderCreateParams): Promise<string> {
    const login = await this.loginVariables();
    const variables = login || params.env ? { ...login, ...params.env } : undefined;
    const env = variables
      ? Object.entries(variables).map(([name, value]) => ({ name, value }))
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
      ...(snapshot.notices ? { notices: [...snapshot.notices] } : {}),
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

  /** The login-shell snapshot when asked for (taken once; a failure is said once on stderr). */
  private async loginVariables(): Promise<Record<string, string> | undefined> {
    if (!this.loginEnvironment) {
      return undefined;
    }
    const snapshot = await loginShellEnvironment(this.loginEnvironment);
    if (snapshot === null && !this.loginEnvironmentFailed) {
      this.loginEnvironmentFailed = true;
      process.stderr.write(
        "acp-process: the login shell's environment could not be read (the shell failed or took too long); commands run with this process's environment\n",
      );
    }
    return snapshot ?? undefined;
  }

  /**
   * The pipe terminal's bytes as the host reads them, from its events (valid during the call
   * only): subscribed and the retained backlog read in one synchronous step, so every byte
   * arrives once. PTY terminals are
   * read rendered (polled), so they have no stream.
   */
  stream(
    terminalId: string,
    onBytes: (bytes: Uint8Array) => void,
    onNotice?: (text: string) => void,
  ): OutputStream | undefined {
    const { host } = this;
    if (!host.on || !host.outputReader || host.screenReader?.(terminalId) !== undefined) {
      return undefined;
    }
    const reader = host.outputReader(terminalId);
    if (!reader) {
      return undefined;
    }
    if (!this.listening) {
      this.listening = true;
      const deliver = (id: string, owner: TerminalOwner, bytes: Uint8Array | undefined): void => {
        if (
          bytes !== undefined &&
          owner.connectionId === this.owner.connectionId &&
          owner.sessionId === this.owner.sessionId
        ) {
          this.sinks.get(id)?.onBytes(bytes);
        }
      };
      // The chunk as read, where the host passes it (the run copies only what it keeps), else
      // the host's copy of it.
      if (host.writtenChunks === true) {
        host.on("written", ({ terminalId: id, owner, data }) => deliver(id, owner, data));
      } else {
        host.on("output", ({ terminalId: id, owner, data }) => deliver(id, owner, data));
      }
      host.on("notice", ({ terminalId: id, owner, text }) => {
        if (
          owner.connectionId === this.owner.connectionId &&
          owner.sessionId === this.owner.sessionId
        ) {
          this.sinks.get(id)?.onNotice?.(text);
        }
      });
    }
    this.sinks.set(terminalId, { onBytes, onNotice });
    // With the start of a character whose rest is still to come: its next event brings only the rest.
    const { bytes, fromByte } = reader.bytesSince(0);
    const pending = reader.pendingTail();
    const backlog = pending.length > 0 ? Buffer.concat([bytes, pending]) : bytes;
    return { backlog, fromByte, stop: () => this.sinks.delete(terminalId) };
  }

  /** From /proc (Linux): a process of the command blocked reading its terminal or stdin (see `probeInputWait`). */
  async inputWait(terminalId: string): Promise<InputWait | undefined | null> {
    const pgid = this.host.info?.(terminalId)?.pid;
    if (pgid === undefined) {
      return null;
    }
    return probeInputWait(pgid, { pty: this.host.screenReader?.(terminalId) !== undefined });
  }

  /** From /proc for the terminal's process group (Linux); null elsewhere or once it has exited. */
  async resourceUsage(terminalId: string): Promise<ResourceUsage | null> {
    const pgid = this.host.info?.(terminalId)?.pid;
    return pgid === undefined ? null : processGroupUsage(pgid);
  }
}
