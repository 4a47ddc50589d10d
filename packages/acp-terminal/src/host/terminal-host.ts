import type { OutputReader } from "../output/output-buffer.js";
import { containmentFor } from "../contain/describe.js";
import { Launcher } from "../contain/launcher.js";
import { launcherSupport, launcherSupportLater } from "../contain/launcher-support.js";
import { NamespacePool } from "../contain/namespace-pool.js";
import { namespaceSupport } from "../contain/namespace-support.js";
import { Reaper } from "../contain/reaper.js";
import { planCommand, resolveShell } from "../spawn/command.js";
import { commandEnvironment, hostBaseEnvironment } from "../spawn/env.js";
import { launchedPtyAvailable } from "../spawn/launched.js";
import { ptyAvailable } from "../spawn/pty.js";
import { resolvePlan } from "../spawn/resolve-program.js";
import { Sandbox, type SandboxStatus } from "../sandbox/sandbox.js";
import { parseSignalName } from "../terminate/signals.js";
import { authorizeAction } from "./authorize.js";
import { TerminalError } from "../core/errors.js";
import { TypedEvents } from "./events.js";
import { ExitHook } from "./exit-hook.js";
import { launchCwd, launchTerminal } from "./launch.js";
import { resolveHostOptions, type ResolvedHostOptions } from "./options.js";
import { sameOwner, TerminalSlots } from "./slots.js";
import type { Terminal } from "./terminal.js";
import { resizePty, signalTerminal, writeInput } from "./terminal-io.js";
import type {
  AuthorizeCommand,
  AuthorizeRequest,
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
  return new TerminalError(
    "disposed",
    "The terminal host was disposed; its terminals were killed and released",
  );
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
  /** What each live terminal runs, as the authorize hook is shown it for writes and signals. */
  readonly #commands = new Map<string, AuthorizeCommand>();
  /** SIGKILLs the same groups from outside when this process goes away in a way no hook sees (SIGKILL). */
  readonly #reaper = new Reaper();
  /** `bash` on the host's PATH (else /bin/sh), looked up once, on the first command that needs a shell. */
  #shellPath: string | undefined;
  readonly #shell = (): string => (this.#shellPath ??= resolveShell(process.env.PATH));
  #disposing: Promise<void> | undefined;

  constructor(options?: TerminalHostOptions) {
    this.#options = resolveHostOptions(options);
    this.#sandbox = new Sandbox(this.#options.sandbox);
    this.#slots = new TerminalSlots(
      this.#options.maxTerminalsPerSession,
      this.#options.maxTerminals,
    );
    // Perl and its POSIX module take 10-50 ms to start: the launcher starts ahead (its probe not
    // blocking the event loop), so that the first create does not wait for it.
    if (this.#options.containment === "auto") {
      void launcherSupportLater().then((tools) => {
        if (tools && !this.#disposing) {
          this.#localLauncher(false);
        }
      });
    }
  }

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
    return containmentFor(this.#options.containment);
  }

  readonly #sandbox: Sandbox;

  /**
   * The sandbox commands run in (`options.sandbox`): its mode, or `"unavailable"` with the reason
   * when one was asked for and bubblewrap cannot provide it here (found out once per process, on
   * first use; ~10 ms). `terminalClientCapabilities` advertises it.
   */
  get sandbox(): SandboxStatus {
    return this.#sandbox.status();
  }

  readonly #namespaceTools = () =>
    this.#options.containment === "pid-namespace" ? namespaceSupport() : undefined;
  readonly #launcherTools = () =>
    this.#options.containment === "off" ? undefined : launcherSupport();
  /** Starts the commands of this host (see contain/launcher.ts); started with the first one. */
  #launcher: Launcher | undefined;
  readonly #localLauncher = (pty: boolean): Launcher | undefined => {
    const tools = this.#launcherTools();
    if (!tools || (pty && !launchedPtyAvailable())) {
      return undefined;
    }
    if (!this.#launcher?.alive) {
      this.#launcher = Launcher.start(tools);
    }
    return this.#launcher;
  };
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
    const creating = this.#create(owner, params, context);
    this.#track(creating);
    return creating;
  }

  async #create(
    ownerInput: TerminalOwner,
    paramsInput: CreateTerminalParams,
    context: { sessionCwd?: string } | undefined,
  ): Promise<string> {
    if (this.#disposing) {
      throw disposedError();
    }
    const owner = validateOwner(ownerInput);
    const params = validateCreateParams(paramsInput);
    const cwd = launchCwd(params, context, this.#options);
    const plan = planCommand(params.command, params.args, this.#options.shell, this.#shell);
    const freeSlot = this.#slots.reserve(owner);
    try {
      // Elsewhere (options.on), the request's variables go on top of that machine's environment,
      // and the program cannot be resolved here: no allow pattern matches it.
      const remote = this.#options.executor !== undefined;
      const base = remote ? {} : hostBaseEnvironment(this.#options.env);
      const env = commandEnvironment(base, params.env);
      const sandboxPrefix = this.#sandbox.prefixFor(cwd);
      const command: AuthorizeCommand = {
        owner,
        command: params.command,
        args: params.args ?? [],
        cwd,
        shell: plan.shell,
        env: (params.env ?? []).map(({ name, value }) => ({ name, value })),
        ...(remote
          ? { program: null, argv: [plan.file, ...plan.args] }
          : resolvePlan(plan, cwd, env.PATH)),
        sandbox: this.#sandbox.mode,
      };
      const granted = await authorizeAction(this.#options.authorize, {
        action: "create",
        ...command,
      });
      for (const { name, value } of granted) {
        env[name] = value;
      }
      if (this.#disposing) {
        throw disposedError();
      }
      const launch = { owner, params, plan, cwd, env, sandboxPrefix };
      const terminal = await launchTerminal(
        launch,
        this.#options,
        this.#events,
        () => !this.#disposing,
        { namespaces: this.#namespacePool(), launcher: this.#localLauncher },
      );
      if (!terminal) {
        throw disposedError();
      }
      this.#terminals.set(terminal.id, terminal);
      this.#freeSlot.set(terminal.id, freeSlot);
      this.#commands.set(terminal.id, command);
      this.#exitHook.track(terminal.process.pid);
      // The launcher is the watchdog of what it started; the reaper watches the rest.
      if (!terminal.process.tree) {
        this.#reaper.track(terminal.process.pid);
      }
      this.#events.emit("create", { terminalId: terminal.id, info: terminal.info() });
      return terminal.id;
    } catch (error) {
      freeSlot();
      throw error;
    }
  }

  /** The output so far, or with `sinceByte` only what follows that offset; never waits. */
  output(
    owner: TerminalOwner,
    terminalId: string,
    options?: OutputOptions,
  ): TerminalOutputSnapshot {
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
    return this.#async(async () => {
      const terminal = this.#get(owner, terminalId);
      const name = parseSignalName(signal ?? "SIGTERM");
      // SIGTERM and SIGKILL only stop the command; another first signal may make it do something.
      if (name !== "SIGTERM" && name !== "SIGKILL") {
        await this.#authorize(terminal.id, { action: "signal", terminalId, signal: name });
      }
      return terminal.kill(name);
    });
  }

  /** Kills the command if it runs and forgets the terminal. Unknown or released ids: nothing to do. */
  release(owner: TerminalOwner, terminalId: string): Promise<void> {
    return this.#async(() => {
      const validOwner = validateOwner(owner);
      const terminal = this.#terminals.get(validateTerminalId(terminalId));
      if (!terminal || !sameOwner(terminal.owner, validOwner)) {
        return Promise.resolve();
      }
      return this.#release(terminal, TerminalError.notFound(terminalId));
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
      const matching = this.#select(filter);
      await Promise.all(
        matching.map((terminal) => this.#release(terminal, TerminalError.notFound(terminal.id))),
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
    return this.#async(async () => {
      const terminal = this.#get(owner, terminalId);
      // Bad data is refused by writeInput, without asking anyone about it.
      const bytes =
        typeof data === "string"
          ? Buffer.from(data, "utf8")
          : data instanceof Uint8Array
            ? data
            : undefined;
      if (bytes) {
        await this.#authorize(terminal.id, {
          action: "write",
          terminalId,
          data: bytes,
          eof: options?.eof === true,
        });
      }
      return writeInput(terminal, data, options);
    });
  }

  /** Resizes a PTY terminal. */
  resize(owner: TerminalOwner, terminalId: string, cols: number, rows: number): void {
    resizePty(this.#get(owner, terminalId), cols, rows);
  }

  /**
   * Sends a named POSIX signal (`"SIGINT"`) to the command's process group. A bad id or signal
   * name throws at once. Without an `authorize` hook the signal is sent before this returns (an
   * exited command throws); with one, once the hook allows it, and the promise says how it went.
   */
  signal(owner: TerminalOwner, terminalId: string, signal: string): Promise<void> {
    const terminal = this.#get(owner, terminalId);
    const name = parseSignalName(signal);
    if (!this.#options.authorize) {
      signalTerminal(terminal, name);
      return Promise.resolve();
    }
    return this.#async(async () => {
      await this.#authorize(terminal.id, { action: "signal", terminalId, signal: name });
      signalTerminal(terminal, name);
    });
  }

  /** A kill the user asked for in the UI: no owner check. */
  userKill(terminalId: string): Promise<ExitStatus> {
    return this.#async(() => {
      const terminal = this.#terminals.get(validateTerminalId(terminalId));
      if (!terminal) {
        throw TerminalError.notFound(terminalId);
      }
      return terminal.kill("SIGTERM");
    });
  }

  info(terminalId: string): TerminalInfo | undefined {
    return this.#terminals.get(terminalId)?.info();
  }

  /**
   * A read-only view of a terminal's output buffer, for a UI that draws its tail: no owner check,
   * and it stays readable after release (holding it keeps the buffer's memory).
   */
  outputReader(terminalId: string): OutputReader | undefined {
    return this.#terminals.get(terminalId)?.buffer;
  }

  /**
   * For a UI drawing a PTY terminal: its output as the terminal's screen shows it (the emulator
   * rendering `terminal/output` answers with), read when called; undefined for pipes. Until the
   * terminal is released (its emulator goes then): keep the text at the exit.
   */
  screenReader(terminalId: string): (() => string) | undefined {
    const terminal = this.#terminals.get(terminalId);
    if (terminal?.process.pty !== true) {
      return undefined;
    }
    return () => terminal.snapshot().output;
  }

  list(filter?: { connectionId?: string; sessionId?: string }): TerminalInfo[] {
    return this.#select(filter ?? {}).map((terminal) => terminal.info());
  }

  /** Kills and releases every terminal; pending waits reject with "disposed". Idempotent. */
  dispose(): Promise<void> {
    this.#disposing ??= (async () => {
      const all = [...this.#terminals.values()];
      await Promise.allSettled(all.map((terminal) => this.#release(terminal, disposedError())));
      while (this.#inFlight.size > 0) {
        await Promise.allSettled([...this.#inFlight]);
      }
      this.#exitHook.clear();
      this.#reaper.close();
      this.#launcher?.close();
      this.#namespaces?.close();
      if (this.#options.ownsExecutor) {
        await this.#options.executor?.dispose();
      }
    })();
    return this.#disposing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #get(owner: TerminalOwner, terminalId: string): Terminal {
    const validOwner = validateOwner(owner);
    const terminal = this.#terminals.get(validateTerminalId(terminalId));
    if (!terminal || !sameOwner(terminal.owner, validOwner)) {
      throw TerminalError.notFound(terminalId);
    }
    return terminal;
  }

  /** Asks the authorize hook about a write or signal to a live terminal. */
  async #authorize(
    terminalId: string,
    action:
      | { action: "write"; terminalId: string; data: Uint8Array; eof: boolean }
      | { action: "signal"; terminalId: string; signal: string },
  ): Promise<void> {
    const command = this.#commands.get(terminalId);
    if (!this.#options.authorize || !command) {
      return;
    }
    await authorizeAction(this.#options.authorize, { ...command, ...action } as AuthorizeRequest);
  }

  #select(filter: { connectionId?: string; sessionId?: string }): Terminal[] {
    return [...this.#terminals.values()].filter(
      (terminal) =>
        (filter.connectionId === undefined ||
          terminal.owner.connectionId === filter.connectionId) &&
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
      this.#commands.delete(terminal.id);
    }
    const releasing = terminal.release(reason).then(() => {
      this.#exitHook.untrack(terminal.process.pid);
      if (!terminal.process.tree) {
        this.#reaper.untrack(terminal.process.pid);
      }
      this.#events.emit("release", { terminalId: terminal.id, owner: terminal.owner });
    });
    this.#track(releasing);
    return releasing;
  }
}
