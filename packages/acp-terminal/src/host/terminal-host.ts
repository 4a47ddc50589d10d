import { NamespacePool } from "../contain/namespace-pool.js";
import { namespaceSupport } from "../contain/namespace-support.js";
import { Reaper } from "../contain/reaper.js";
import { planCommand, resolveShell } from "../spawn/command.js";
import { ptyAvailable } from "../spawn/pty.js";
import { parseSignalName } from "../terminate/signals.js";
import { authorizeCreate } from "./authorize.js";
import { TerminalError } from "./errors.js";
import { TypedEvents } from "./events.js";
import { ExitHook } from "./exit-hook.js";
import { launchCwd, launchTerminal } from "./launch.js";
import { resolveHostOptions, type ResolvedHostOptions } from "./options.js";
import { sameOwner, TerminalSlots } from "./slots.js";
import type { Terminal } from "./terminal.js";
import { resizePty, signalTerminal, writeInput } from "./terminal-io.js";
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
import { validateCreateParams, validateOwner, validateTerminalId } from "./validate.js";

function disposedError(): TerminalError {
  return new TerminalError("disposed", "The terminal host was disposed; its terminals were killed and released");
}

/**
 * The client side of ACP terminals, without a transport: starts commands for an owner (a
 * connection and a session), keeps the newest bytes of their output, reports their exit, and
 * kills them with their process group. Every id is scoped by owner: another owner's terminal is
 * "not found". Events let a UI follow output live and kill terminals itself.
 */
export class TerminalHost {
  readonly #options: ResolvedHostOptions;
  readonly #terminals = new Map<string, Terminal>();
  readonly #events = new TypedEvents<TerminalHostEvents>();
  readonly #slots: TerminalSlots;
  /** How to give back each live terminal's slot. */
  readonly #freeSlot = new Map<string, () => void>();
  /** Creates and releases in flight, so dispose() can wait for them. */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** SIGKILLs the groups of terminals not yet released if the process exits without dispose(). */
  readonly #exitHook = new ExitHook();
  /** SIGKILLs the same groups from outside when this process goes away in a way no hook sees (SIGKILL). */
  readonly #reaper = new Reaper();
  /** `bash` on the host's PATH (else /bin/sh), looked up once, on the first command that needs a shell. */
  #shellPath: string | undefined;
  readonly #shell = (): string => (this.#shellPath ??= resolveShell(process.env.PATH));
  #disposing: Promise<void> | undefined;

  constructor(options?: TerminalHostOptions) {
    this.#options = resolveHostOptions(options);
    this.#slots = new TerminalSlots(this.#options.maxTerminalsPerSession, this.#options.maxTerminals);
  }

  /** Whether PTY terminals can be opened here (node-pty loads); `terminalClientCapabilities` advertises it. */
  get ptyAvailable(): boolean {
    return ptyAvailable();
  }

  /**
   * How terminals are kept from outliving their kill, release and this host: `"pid-namespace"`
   * with `containment: "auto"` where each terminal can get one (found out once per process, on
   * first use; ~50 ms), else `"process-group"`. `terminalClientCapabilities` advertises it.
   */
  get containment(): ContainmentMode {
    return this.#namespaceTools() ? "pid-namespace" : "process-group";
  }

  readonly #namespaceTools = () => (this.#options.containment === "auto" ? namespaceSupport() : undefined);
  /** Namespaces for terminals, one kept started ahead; made with the first terminal that can have one. */
  #namespaces: NamespacePool | undefined;
  readonly #namespacePool = (): NamespacePool | undefined => {
    const tools = this.#namespaceTools();
    return tools && (this.#namespaces ??= new NamespacePool(tools));
  };

  get limits(): { defaultOutputByteLimit: number; maxOutputByteLimit: number } {
    return {
      defaultOutputByteLimit: this.#options.defaultOutputByteLimit,
      maxOutputByteLimit: this.#options.maxOutputByteLimit,
    };
  }

  on<E extends keyof TerminalHostEvents>(event: E, listener: (...args: TerminalHostEvents[E]) => void): this {
    this.#events.on(event, listener);
    return this;
  }

  off<E extends keyof TerminalHostEvents>(event: E, listener: (...args: TerminalHostEvents[E]) => void): this {
    this.#events.off(event, listener);
    return this;
  }

  once<E extends keyof TerminalHostEvents>(event: E, listener: (...args: TerminalHostEvents[E]) => void): this {
    this.#events.once(event, listener);
    return this;
  }

  /** Starts a command; resolves with its terminal id once the process has spawned. */
  create(owner: TerminalOwner, params: CreateTerminalParams, context?: { sessionCwd?: string }): Promise<string> {
    const creating = this.#create(owner, params, context);
    this.#track(creating);
    return creating;
  }

  async #create(
    ownerInput: TerminalOwner,
    paramsInput: CreateTerminalParams,
    context: { sessionCwd?: string } | undefined,
  ): Promise<string> {
    if (this.#disposing) throw disposedError();
    const owner = validateOwner(ownerInput);
    const params = validateCreateParams(paramsInput);
    const cwd = launchCwd(params, context, this.#options);
    const plan = planCommand(params.command, params.args, this.#options.shell, this.#shell);
    const freeSlot = this.#slots.reserve(owner);
    try {
      const args = params.args ?? [];
      await authorizeCreate(this.#options.authorize, { owner, command: params.command, args, cwd, shell: plan.shell });
      if (this.#disposing) throw disposedError();
      const launch = { owner, params, plan, cwd };
      const terminal = await launchTerminal(launch, this.#options, this.#events, () => !this.#disposing, this.#namespacePool());
      if (!terminal) throw disposedError();
      this.#terminals.set(terminal.id, terminal);
      this.#freeSlot.set(terminal.id, freeSlot);
      this.#exitHook.track(terminal.process.pid);
      this.#reaper.track(terminal.process.pid);
      this.#events.emit("create", { terminalId: terminal.id, info: terminal.info() });
      return terminal.id;
    } catch (error) {
      freeSlot();
      throw error;
    }
  }

  /** The output so far, or with `sinceByte` only what follows that offset; never waits. */
  output(owner: TerminalOwner, terminalId: string, options?: OutputOptions): TerminalOutputSnapshot {
    const terminal = this.#get(owner, terminalId);
    const sinceByte = options?.sinceByte;
    return sinceByte === undefined ? terminal.snapshot() : terminal.snapshotSince(sinceByte);
  }

  /** Resolves once the command has exited and its output is drained. */
  waitForExit(owner: TerminalOwner, terminalId: string): Promise<ExitStatus> {
    return this.#async(() => this.#get(owner, terminalId).waitForExit());
  }

  /**
   * SIGTERM (or `signal`) to the command's process group, SIGKILL after `killGraceMs`; resolves
   * once it has exited and drained. The terminal stays readable. Exited: its status, no signal.
   */
  kill(owner: TerminalOwner, terminalId: string, signal?: string): Promise<ExitStatus> {
    return this.#async(() => {
      const terminal = this.#get(owner, terminalId);
      return terminal.kill(parseSignalName(signal ?? "SIGTERM"));
    });
  }

  /** Kills the command if it runs and forgets the terminal. Unknown or released ids: nothing to do. */
  release(owner: TerminalOwner, terminalId: string): Promise<void> {
    return this.#async(() => {
      const validOwner = validateOwner(owner);
      const terminal = this.#terminals.get(validateTerminalId(terminalId));
      if (!terminal || !sameOwner(terminal.owner, validOwner)) return Promise.resolve();
      return this.#release(terminal, TerminalError.notFound(terminalId));
    });
  }

  /** Releases every terminal of a connection, or of one session in it. */
  releaseAll(filter: { connectionId: string; sessionId?: string }): Promise<void> {
    return this.#async(async () => {
      // A missing connectionId would select every terminal of every connection.
      if (typeof filter?.connectionId !== "string" || filter.connectionId.length === 0) {
        throw TerminalError.invalidParams("filter.connectionId", "a non-empty string", filter?.connectionId);
      }
      const matching = this.#select(filter);
      await Promise.all(matching.map((terminal) => this.#release(terminal, TerminalError.notFound(terminal.id))));
    });
  }

  /** Writes to the command's stdin; resolves once the bytes were handed to the OS. */
  write(owner: TerminalOwner, terminalId: string, data: string | Uint8Array, options?: WriteOptions): Promise<void> {
    return this.#async(() => writeInput(this.#get(owner, terminalId), data, options));
  }

  /** Resizes a PTY terminal. */
  resize(owner: TerminalOwner, terminalId: string, cols: number, rows: number): void {
    resizePty(this.#get(owner, terminalId), cols, rows);
  }

  /** Sends a named POSIX signal (`"SIGINT"`) to the command's process group. */
  signal(owner: TerminalOwner, terminalId: string, signal: string): void {
    signalTerminal(this.#get(owner, terminalId), signal);
  }

  /** A kill the user asked for in the UI: no owner check. */
  userKill(terminalId: string): Promise<ExitStatus> {
    return this.#async(() => {
      const terminal = this.#terminals.get(validateTerminalId(terminalId));
      if (!terminal) throw TerminalError.notFound(terminalId);
      return terminal.kill("SIGTERM");
    });
  }

  info(terminalId: string): TerminalInfo | undefined {
    return this.#terminals.get(terminalId)?.info();
  }

  list(filter?: { connectionId?: string; sessionId?: string }): TerminalInfo[] {
    return this.#select(filter ?? {}).map((terminal) => terminal.info());
  }

  /** Kills and releases every terminal; pending waits reject with "disposed". Idempotent. */
  dispose(): Promise<void> {
    this.#disposing ??= (async () => {
      const all = [...this.#terminals.values()];
      await Promise.allSettled(all.map((terminal) => this.#release(terminal, disposedError())));
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
      this.#exitHook.clear();
      this.#reaper.close();
      this.#namespaces?.close();
    })();
    return this.#disposing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #get(owner: TerminalOwner, terminalId: string): Terminal {
    const validOwner = validateOwner(owner);
    const terminal = this.#terminals.get(validateTerminalId(terminalId));
    if (!terminal || !sameOwner(terminal.owner, validOwner)) throw TerminalError.notFound(terminalId);
    return terminal;
  }

  #select(filter: { connectionId?: string; sessionId?: string }): Terminal[] {
    return [...this.#terminals.values()].filter(
      (terminal) =>
        (filter.connectionId === undefined || terminal.owner.connectionId === filter.connectionId) &&
        (filter.sessionId === undefined || terminal.owner.sessionId === filter.sessionId),
    );
  }

  /** Runs `body` so that a synchronous throw (a bad parameter) becomes a rejection. */
  #async<T>(body: () => Promise<T>): Promise<T> {
    try {
      return body();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #track(promise: Promise<unknown>): void {
    const settled: Promise<boolean> = promise.then(
      () => this.#inFlight.delete(settled),
      () => this.#inFlight.delete(settled),
    );
    this.#inFlight.add(settled);
  }

  #release(terminal: Terminal, reason: TerminalError): Promise<void> {
    if (this.#terminals.get(terminal.id) === terminal) {
      this.#terminals.delete(terminal.id);
      this.#freeSlot.get(terminal.id)?.();
      this.#freeSlot.delete(terminal.id);
    }
    const releasing = terminal.release(reason).then(() => {
      this.#exitHook.untrack(terminal.process.pid);
      this.#reaper.untrack(terminal.process.pid);
      this.#events.emit("release", { terminalId: terminal.id, owner: terminal.owner });
    });
    this.#track(releasing);
    return releasing;
  }
}
