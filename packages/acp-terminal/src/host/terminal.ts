import type { OutputBuffer } from "../output/output-buffer.js";
import { PtyScreen } from "../output/pty-screen.js";
import { processGroupOf } from "../executors/local.js";
import type { ExecutedProcess, ProcessGroup } from "../executors/types.js";
import { TerminalError } from "../core/errors.js";
import { readOutputSince } from "./output-since.js";
import { DEFAULT_PTY_SIZE } from "./validate.js";
import type { CommandPlan } from "../spawn/command.js";
import type {
  ContainmentMode,
  EnvVariable,
  ExitStatus,
  TerminalInfo,
  TerminalOutputSnapshot,
  TerminalOwner,
  TerminalState,
} from "./types.js";

export interface TerminalInit {
  id: string;
  owner: TerminalOwner;
  command: string;
  args: string[];
  /** Whether the request sent `args`. */
  argsGiven: boolean;
  /** How it runs (through a shell or not). */
  plan: CommandPlan;
  /** The variables the request set. */
  env: EnvVariable[];
  outputByteLimit: number;
  cwd: string;
  buffer: OutputBuffer;
  /** The host's remarks about the command, filled as they come (see `TerminalOutputSnapshot.notices`). */
  notices: readonly string[];
  /** Adds a remark (kept in `notices`, and emitted). */
  onNotice: (text: string) => void;
  controller: AbortController;
  process: ExecutedProcess;
  /**
   * The PID namespace its descendants live in, if it has one: ended with its kill or release; it
   * reads the command's exact exit from its relay's (`exitOf`).
   */
  namespace: TerminalNamespace | undefined;
  /** Output that does not come from the command's descriptors (what the namespace relay said). */
  appendOutput: (chunk: Uint8Array) => void;
  /** A PTY's size when it was created (default 80×24): its output is rendered at it. */
  ptySize?: { cols: number; rows: number };
  killGraceMs: number;
  /** Called once, when the command has exited and its output is drained. */
  onExit: (exitStatus: ExitStatus) => void;
}

/** What a terminal needs of its PID namespace (contain/pid-namespace.ts). */
export interface TerminalNamespace {
  end(): void;
  exitOf(status: ExitStatus, show: (text: string) => void): ExitStatus;
}

const signalFailed = TerminalError.signalFailed;
/** Why a terminal's controller aborts (abort() without a reason builds a DOMException, per terminal). */
const ENDED = "the terminal ended";

/**
 * One command and everything the host knows about it. Its AbortController owns its timers and
 * listeners and is aborted when it has exited and drained, or when it is released.
 */
export class Terminal {
  readonly id: string;
  readonly owner: TerminalOwner;
  readonly command: string;
  readonly args: string[];
  readonly cwd: string;
  readonly #request: Pick<TerminalInit, "argsGiven" | "plan" | "env" | "outputByteLimit">;
  readonly startedAt = Date.now();
  readonly buffer: OutputBuffer;
  readonly #notices: readonly string[];
  readonly process: ExecutedProcess;
  /** Where kill, signal and release go: the local group led by `pid`, or an executor's. */
  readonly #group: ProcessGroup;
  readonly #controller: AbortController;
  readonly #namespace: TerminalNamespace | undefined;
  readonly #killGraceMs: number;
  #state: TerminalState = "running";
  #exitStatus: ExitStatus | undefined;
  /** Whether processes were left in the group when the leader exited (background children). */
  #groupOutlivedLeader = false;
  /** Resolves with the exit status once exited and drained; never rejects. */
  readonly #exited: Promise<ExitStatus>;
  /**
   * Rejects when the terminal is released (or the host disposed), ending pending waits: made by
   * the first wait, so a release that nobody waits on builds no error (its stack is most of a
   * release's cost when a thousand terminals end at once).
   */
  #gone: { promise: Promise<never>; reject: (error: TerminalError) => void } | undefined;
  /** Why the terminal was released (made when a wait needs it). */
  #releasedBy: (() => TerminalError) | undefined;
  #killing: Promise<ExitStatus> | undefined;
  #releasing: Promise<void> | undefined;
  /** PTY terminals: the emulator that renders the raw bytes as text. */
  readonly #screen: PtyScreen | undefined;

  constructor(init: TerminalInit) {
    this.id = init.id;
    this.owner = init.owner;
    this.command = init.command;
    this.args = init.args;
    this.cwd = init.cwd;
    const { argsGiven, plan, env, outputByteLimit } = init;
    this.#request = { argsGiven, plan, env, outputByteLimit };
    this.buffer = init.buffer;
    this.#notices = init.notices;
    this.process = init.process;
    this.#group = processGroupOf(init.process);
    this.#controller = init.controller;
    this.#namespace = init.namespace;
    this.#killGraceMs = init.killGraceMs;
    if (init.process.pty) {
      this.#screen = new PtyScreen(init.buffer, init.ptySize ?? DEFAULT_PTY_SIZE);
    }
    this.#exited = init.process.settled.then((relayed) => {
      const status =
        init.namespace?.exitOf(relayed, (text) => init.onNotice(text.trimEnd())) ?? relayed;
      this.#exitStatus = status;
      if (this.#state === "running") {
        this.#state = "exited";
      }
      this.buffer.end();
      // Started through the launcher, its tree holds its group (a group never leaves its session,
      // whose processes all descend from the command): release asks the tree, not kill(-pgid, 0).
      this.#groupOutlivedLeader = init.process.tree === undefined && this.#group.alive();
      this.#controller.abort(ENDED);
      init.onExit(status);
      return status;
    });
  }

  get state(): TerminalState {
    return this.#state;
  }

  get exitStatus(): ExitStatus | undefined {
    return this.#exitStatus;
  }

  get containment(): ContainmentMode {
    return this.#namespace ? "pid-namespace" : this.process.tree ? "process-tree" : "process-group";
  }

  info(): TerminalInfo {
    return {
      terminalId: this.id,
      owner: this.owner,
      command: this.command,
      args: [...this.args],
      argsGiven: this.#request.argsGiven,
      shell: this.#request.plan.shell,
      argv: [this.#request.plan.file, ...this.#request.plan.args],
      env: this.#request.env.map((variable) => ({ ...variable })),
      outputByteLimit: this.#request.outputByteLimit,
      cwd: this.cwd,
      pty: this.process.pty,
      pid: this.process.pid,
      containment: this.containment,
      state: this.#state,
      ...(this.#exitStatus ? { exitStatus: { ...this.#exitStatus } } : {}),
      startedAt: this.startedAt,
    };
  }

  /**
   * `output` is bytes `[droppedBytes, totalBytes)`: an incomplete character the text holds back
   * is not counted yet, so an agent reading increments from `totalBytes` gets it whole next time.
   */
  snapshot(): TerminalOutputSnapshot {
    const rendered = this.#screen?.snapshot();
    return {
      output: rendered ? rendered.output : this.buffer.text(),
      truncated: rendered ? rendered.truncated : this.buffer.truncated,
      ...(this.#exitStatus ? { exitStatus: { ...this.#exitStatus } } : {}),
      totalBytes: rendered
        ? rendered.totalBytes
        : this.buffer.totalBytes - this.buffer.pendingBytes,
      droppedBytes: this.buffer.droppedBytes,
      ...this.#noticeField(),
    };
  }

  #noticeField(): { notices?: string[] } {
    return this.#notices.length > 0 ? { notices: [...this.#notices] } : {};
  }

  /** The output from stream offset `sinceByte` on, with `fromByte` (see `readOutputSince`). */
  snapshotSince(sinceByte: unknown): TerminalOutputSnapshot & { fromByte: number } {
    return {
      ...readOutputSince(this.buffer, this.#screen, sinceByte),
      ...(this.#exitStatus ? { exitStatus: { ...this.#exitStatus } } : {}),
      ...this.#noticeField(),
    };
  }

  /** The PTY was resized: output written from now on is rendered at the new size. */
  resizeScreen(cols: number, rows: number): void {
    this.#screen?.resize(cols, rows);
  }

  /** Exit status once exited and drained; rejects with the release's reason if released first. */
  waitForExit(): Promise<ExitStatus> {
    if (this.#exitStatus) {
      return Promise.resolve({ ...this.#exitStatus });
    }
    return Promise.race([this.#exited.then((status) => ({ ...status })), this.#whenGone()]);
  }

  /** Pending waits, and waits from now on, reject with `reason()`. */
  #endWaits(reason: () => TerminalError): void {
    if (this.#releasedBy) {
      return;
    }
    this.#releasedBy = reason;
    this.#gone?.reject(reason());
  }

  #whenGone(): Promise<never> {
    if (!this.#gone) {
      let reject!: (error: TerminalError) => void;
      const promise = new Promise<never>((_, rejecter) => (reject = rejecter));
      promise.catch(() => {}); // only waits observe it
      this.#gone = { promise, reject };
      if (this.#releasedBy) {
        reject(this.#releasedBy());
      }
    }
    return this.#gone.promise;
  }

  /**
   * `signal` to the process group, then one grace for the whole group (leader and grandchildren)
   * before SIGKILL, then the end of its PID namespace (what left the group); resolves once exited
   * and drained. Output the group writes while it cleans up is kept. A kill while one is under way
   * joins it (a SIGKILL is sent at once). Exited: its status.
   */
  kill(signal: NodeJS.Signals): Promise<ExitStatus> {
    if (this.#exitStatus) {
      return Promise.resolve({ ...this.#exitStatus });
    }
    if (this.#killing) {
      if (signal === "SIGKILL") {
        this.sendSignal("SIGKILL");
      }
      return this.#killing.then((status) => ({ ...status }));
    }
    const terminating = this.#group
      .terminate({ signal, graceMs: this.#killGraceMs })
      .finally(() => this.#namespace?.end());
    this.process.holdDrainUntil(terminating);
    const killing = terminating.then(
      () => this.#exited,
      (error: unknown) => {
        this.#killing = undefined;
        throw signalFailed(this.process.pid, signal, error);
      },
    );
    this.#killing = killing;
    return killing.then((status) => ({ ...status }));
  }

  /** A signal to the process group; the caller has checked the terminal is running. */
  sendSignal(signal: NodeJS.Signals): void {
    try {
      this.#group.signal(signal);
    } catch (error) {
      throw signalFailed(this.process.pid, signal, error);
    }
  }

  /**
   * Ends the terminal: the command is killed if it runs, processes it left in its group (and,
   * started through the launcher, in its tree) get SIGTERM, the grace, then SIGKILL, and its PID
   * namespace (with whatever left the group) ends. Idempotent.
   *
   * Pending waits: with `waitsSeeExit` (a release the agent or the user asked for) they resolve
   * with how the command ended, once the release's kill has ended it (a wait sent before the
   * release was valid when sent, and the release ends the command: the wait learns how); they
   * reject with `reason` only if it is still running once the release is done (its kill failed).
   * Without it (the host disposed, the connection closed: nobody is left to answer) they reject
   * with `reason` at once.
   */
  release(reason: () => TerminalError, options: { waitsSeeExit?: boolean } = {}): Promise<void> {
    if (this.#releasing) {
      return this.#releasing;
    }
    this.#state = "released";
    if (options.waitsSeeExit !== true) {
      this.#endWaits(reason);
    }
    this.#releasing = (async () => {
      try {
        if (!this.#exitStatus) {
          await this.kill("SIGTERM");
        } else if (this.#groupOutlivedLeader || this.process.tree?.treeAlive === true) {
          await this.#group
            .terminate({ signal: "SIGTERM", graceMs: this.#killGraceMs })
            .catch((error: unknown) => {
              throw signalFailed(this.process.pid, "SIGTERM", error);
            });
        }
      } finally {
        this.#group.release?.();
        this.#namespace?.end();
        this.#controller.abort(ENDED);
        this.#screen?.dispose();
        if (!this.#exitStatus) {
          this.#endWaits(reason);
        }
      }
    })();
    return this.#releasing;
  }
}
