import type { OutputReader } from "../output/output-buffer.js";
import { localExecutor } from "../executors/local.js";
import type { ExecutorPlace } from "../executors/types.js";
import { resolveShell } from "../spawn/command.js";
import { ptyAvailable } from "../spawn/pty.js";
import { Sandbox, type SandboxStatus } from "../sandbox/sandbox.js";
import { AuthorizedActions } from "./authorized-actions.js";
import { TerminalContainers } from "./containers.js";
import { createTerminal, disposedError, type CreateParts } from "./create-terminal.js";
import { TerminalError } from "../core/errors.js";
import { TypedEvents } from "./events.js";
import { InFlight } from "./in-flight.js";
import { resolveHostOptions, type ResolvedHostOptions } from "./options.js";
import type { Terminal } from "./terminal.js";
import { TerminalRegistry } from "./terminal-registry.js";
import { resizePty } from "./terminal-io.js";
import type {
  ContainmentMode,
  CreateTerminalParams,
  ExitStatus,
  OutputOptions,
  TerminalHostEvents,
  TerminalHostOptions,
  TerminalInfo,
  TerminalOutputSnapshot,
  TerminalOwner,
  WriteOptions,
} from "./types.js";
import { validateTerminalId } from "./validate.js";

/**
 * The client side of ACP terminals, without a transport: starts commands for an owner (a
 * connection and a session), keeps the newest bytes of their output, reports their exit, and
 * kills them with their process group. Every id is scoped by owner: another owner's terminal is
 * "not found". Events let a UI follow output live and kill terminals itself.
 */
export class TerminalHost {
  readonly #options: ResolvedHostOptions;
  readonly #terminals: TerminalRegistry;
  readonly #actions: AuthorizedActions;
  readonly #events = new TypedEvents<TerminalHostEvents>();
  /** Creates and releases in flight, so dispose() can wait for them. */
  readonly #inFlight = new InFlight();
  readonly #sandbox: Sandbox;
  readonly #containers: TerminalContainers;
  /** What a create goes through (see create-terminal.ts). */
  readonly #parts: CreateParts;
  /** `bash` on the host's PATH (else /bin/sh), looked up once, on the first command that needs a shell. */
  #shellPath: string | undefined;
  readonly #shell = (): string => (this.#shellPath ??= resolveShell(process.env.PATH));
  #disposing: Promise<void> | undefined;

  constructor(options?: TerminalHostOptions) {
    this.#options = resolveHostOptions(options);
    this.#sandbox = new Sandbox(this.#options.sandbox);
    this.#terminals = new TerminalRegistry(
      this.#options.maxTerminalsPerSession,
      this.#options.maxTerminals,
    );
    this.#actions = new AuthorizedActions(this.#options.authorize, this.#terminals);
    this.#containers = new TerminalContainers(this.#options.containment, () => !this.#disposing);
    this.#parts = {
      options: this.#options,
      sandbox: this.#sandbox,
      terminals: this.#terminals,
      containers: this.#containers,
      events: this.#events,
      shell: this.#shell,
      disposing: () => this.#disposing !== undefined,
    };
  }

  /** `written` events carry their chunk (`TerminalWrittenEvent.data`). */
  readonly writtenChunks = true;

  /** Whether PTY terminals can be opened here (node-pty loads); `terminalClientCapabilities` advertises it. */
  get ptyAvailable(): boolean {
    return ptyAvailable();
  }

  /**
   * How terminals are kept from outliving their kill, release and this host (found out once per
   * process, on first use): `"process-tree"` where commands can start through the launcher (the
   * default), `"pid-namespace"` with `containment: "pid-namespace"` where each terminal can get
   * one, else `"process-group"`. `terminalClientCapabilities` advertises it.
   */
  get containment(): ContainmentMode {
    return this.#containers.mode;
  }

  /**
   * The sandbox commands run in (`options.sandbox`): its mode, or `"unavailable"` with the reason
   * when one was asked for and bubblewrap cannot provide it here (found out once per process, on
   * first use; ~10 ms). `terminalClientCapabilities` advertises it.
   */
  get sandbox(): SandboxStatus {
    return this.#sandbox.status();
  }

  /** Where commands run (`options.on`), with the OS and shell once a connection said them. */
  get executor(): ExecutorPlace {
    return (this.#options.executor ?? localExecutor).place();
  }

  /**
   * Opens the remote executor's first connection (if any) so that `executor` knows the OS and
   * shell there before the capability is sent; never rejects (a failure shows on the first create).
   */
  async probeExecutor(): Promise<void> {
    await this.#options.executor?.probe?.();
  }

  get limits(): { defaultOutputByteLimit: number; maxOutputByteLimit: number } {
    return {
      defaultOutputByteLimit: this.#options.defaultOutputByteLimit,
      maxOutputByteLimit: this.#options.maxOutputByteLimit,
    };
  }

  on<E extends keyof TerminalHostEvents>(
    event: E,
    listener: (...args: TerminalHostEvents[E]) => void,
  ): this {
    this.#events.on(event, listener);
    return this;
  }

  off<E extends keyof TerminalHostEvents>(
    event: E,
    listener: (...args: TerminalHostEvents[E]) => void,
  ): this {
    this.#events.off(event, listener);
    return this;
  }

  once<E extends keyof TerminalHostEvents>(
    event: E,
    listener: (...args: TerminalHostEvents[E]) => void,
  ): this {
    this.#events.once(event, listener);
    return this;
  }

  /** Starts a command; resolves with its terminal id once the process has spawned. */
  create(
    owner: TerminalOwner,
    params: CreateTerminalParams,
    context?: { sessionCwd?: string },
  ): Promise<string> {
    const creating = createTerminal(this.#parts, owner, params, context);
    this.#inFlight.track(creating);
    return creating;
  }

  /** The output so far, or with `sinceByte` only what follows that offset; never waits. */
  output(
    owner: TerminalOwner,
    terminalId: string,
    options?: OutputOptions,
  ): TerminalOutputSnapshot {
    const terminal = this.#terminals.get(owner, terminalId);
    const sinceByte = options?.sinceByte;
    return sinceByte === undefined ? terminal.snapshot() : terminal.snapshotSince(sinceByte);
  }

  /** Resolves once the command has exited and its output is drained. */
  waitForExit(owner: TerminalOwner, terminalId: string): Promise<ExitStatus> {
    return this.#async(() => this.#terminals.get(owner, terminalId).waitForExit());
  }

  /**
   * SIGTERM (or `signal`) to the command's process group, SIGKILL after `killGraceMs`; resolves
   * once it has exited and drained. The terminal stays readable. Exited: its status, no signal.
   */
  kill(owner: TerminalOwner, terminalId: string, signal?: string): Promise<ExitStatus> {
    return this.#async(() =>
      this.#actions.kill(this.#terminals.get(owner, terminalId), terminalId, signal),
    );
  }

  /**
   * Kills the command if it runs and forgets the terminal. Unknown or released ids: nothing to do.
   * A `waitForExit` pending when it comes resolves with how the release's kill ended the command;
   * one asked after it fails with `not_found`.
   */
  release(owner: TerminalOwner, terminalId: string): Promise<void> {
    return this.#async(() => {
      const terminal = this.#terminals.find(owner, terminalId);
      if (!terminal) {
        return Promise.resolve();
      }
      return this.#release(terminal, () => TerminalError.notFound(terminalId), {
        waitsSeeExit: true,
      });
    });
  }

  /** Releases every terminal of a connection, or of one session in it. */
  releaseAll(filter: { connectionId: string; sessionId?: string }): Promise<void> {
    return this.#async(async () => {
      // A missing connectionId would select every terminal of every connection.
      if (typeof filter?.connectionId !== "string" || filter.connectionId.length === 0) {
        throw TerminalError.invalidParams(
          "filter.connectionId",
          "a non-empty string",
          filter?.connectionId,
        );
      }
      const matching = this.#terminals.select(filter);
      await Promise.all(
        matching.map((terminal) =>
          this.#release(terminal, () => TerminalError.notFound(terminal.id)),
        ),
      );
      await this.#options.executor?.endSessions?.(filter);
    });
  }

  /** Writes to the command's stdin; resolves once the bytes were handed to the OS. */
  write(
    owner: TerminalOwner,
    terminalId: string,
    data: string | Uint8Array,
    options?: WriteOptions,
  ): Promise<void> {
    return this.#async(() =>
      this.#actions.write(this.#terminals.get(owner, terminalId), terminalId, data, options),
    );
  }

  /** Resizes a PTY terminal. */
  resize(owner: TerminalOwner, terminalId: string, cols: number, rows: number): void {
    resizePty(this.#terminals.get(owner, terminalId), cols, rows);
  }

  /**
   * Sends a named POSIX signal (`"SIGINT"`) to the command's process group. A bad id or signal
   * name throws at once. Without an `authorize` hook the signal is sent before this returns (an
   * exited command throws); with one, once the hook allows it, and the promise says how it went.
   */
  signal(owner: TerminalOwner, terminalId: string, signal: string): Promise<void> {
    return this.#actions.signal(this.#terminals.get(owner, terminalId), terminalId, signal);
  }

  /** A kill the user asked for in the UI: no owner check. */
  userKill(terminalId: string): Promise<ExitStatus> {
    return this.#async(() => {
      const terminal = this.#terminals.byId(validateTerminalId(terminalId));
      if (!terminal) {
        throw TerminalError.notFound(terminalId);
      }
      return terminal.kill("SIGTERM");
    });
  }

  info(terminalId: string): TerminalInfo | undefined {
    return this.#terminals.byId(terminalId)?.info();
  }

  /**
   * A read-only view of a terminal's output buffer, for a UI that draws its tail: no owner check,
   * and it stays readable after release (holding it keeps the buffer's memory).
   */
  outputReader(terminalId: string): OutputReader | undefined {
    return this.#terminals.byId(terminalId)?.buffer;
  }

  /**
   * For a UI drawing a PTY terminal: its output as the terminal's screen shows it (the emulator
   * rendering `terminal/output` answers with), read when called; undefined for pipes. Until the
   * terminal is released (its emulator goes then): keep the text at the exit.
   */
  screenReader(terminalId: string): (() => string) | undefined {
    const terminal = this.#terminals.byId(terminalId);
    if (terminal?.process.pty !== true) {
      return undefined;
    }
    return () => terminal.snapshot().output;
  }

  list(filter?: { connectionId?: string; sessionId?: string }): TerminalInfo[] {
    return this.#terminals.select(filter ?? {}).map((terminal) => terminal.info());
  }

  /** Kills and releases every terminal; pending waits reject with "disposed". Idempotent. */
  dispose(): Promise<void> {
    this.#disposing ??= (async () => {
      const all = this.#terminals.select({});
      await Promise.allSettled(all.map((terminal) => this.#release(terminal, disposedError)));
      await this.#inFlight.settled();
      this.#containers.close();
      this.#sandbox.removeGuards();
      if (this.#options.ownsExecutor) {
        await this.#options.executor?.dispose();
      }
    })();
    return this.#disposing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  /** Runs `body` so that a synchronous throw (a bad parameter) becomes a rejection. */
  #async<T>(body: () => Promise<T>): Promise<T> {
    try {
      return body();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #release(
    terminal: Terminal,
    reason: () => TerminalError,
    options?: { waitsSeeExit?: boolean },
  ): Promise<void> {
    this.#terminals.remove(terminal);
    const releasing = terminal.release(reason, options).then(() => {
      this.#containers.watchDone(terminal.process);
      this.#events.emit("release", { terminalId: terminal.id, owner: terminal.owner });
    });
    this.#inFlight.track(releasing);
    return releasing;
  }
}
