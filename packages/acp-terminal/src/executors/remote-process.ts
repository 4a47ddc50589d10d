import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { TerminalError } from "../core/errors.js";
import type { ExitStatus } from "../core/types.js";
import type { ExecutedProcess, ExecutorSpawnRequest } from "./types.js";
import type { RemoteConnection } from "./remote-connection.js";
import type { RemoteEvent } from "./remote-events.js";
import { DrainHold } from "../spawn/pipes.js";
import { drainUntilQuiet } from "./remote-drain.js";
import { Outcome } from "../core/outcome.js";
import { sessionEndedFirst, startTimeout } from "./remote-start.js";
import { startLocalClient, type LocalClient } from "./session-client.js";
import { RemoteGroup } from "./remote-group.js";
import { encodeSpec, specLines, startFailure } from "./remote-spec.js";

export interface RemoteSession {
  connection: RemoteConnection;
  /** `ssh://box`: named in messages. */
  target: string;
  /** The local command that runs `remoteArgv` in a session of its own (pipes, or a PTY). */
  sessionCommand(remoteArgv: string[], pty: boolean): string[];
  /** The request's cwd as a path on the other machine (a mounted workspace is mapped). */
  remoteCwd(cwd: string): string;
  /** Called once when the terminal's session has ended (its local client exited) or never began. */
  sessionEnded(): void;
}

/** Longest wait of input behind a resize the agent has not confirmed. */
const RESIZE_WAIT_MS = 2000;

/** What a terminal whose remote side is gone reports: the agent SIGKILLs what was left there. */
const LOST_STATUS: ExitStatus = { exitCode: null, signal: "SIGKILL" };

/**
 * Where a remote command is. Its output reaches the terminal until it is `drained`.
 * - `starting`: the spec went to the agent and the session runs the wrapper; no report yet.
 * - `running`: the launcher said `started`.
 * - `exited`: the exit status is known (the wrapper's report, or the loss of the wrapper or the
 *   connection); the session's output may still be coming.
 * - `drained`: exited, and the output read to its end (or given up on: a background process kept
 *   the session open).
 * - `refused`: it never started (a failed cwd or program lookup, a session that ended, a timeout).
 */
type RemoteState =
  | { phase: "starting" }
  | { phase: "running"; pid: number }
  | { phase: "exited"; status: ExitStatus }
  | { phase: "drained"; status: ExitStatus }
  | { phase: "refused"; error: TerminalError };

/**
 * Starts one command on the other end of `session.connection`: its spec goes to the agent, a local
 * client opens the terminal's session running the wrapper, and the wrapper's reports (through the
 * agent) give its pid, exec errors and exact exit status. Output comes through the client.
 */
export async function spawnRemote(
  session: RemoteSession,
  request: ExecutorSpawnRequest,
): Promise<ExecutedProcess> {
  const remote = new RemoteProcess(session, request);
  await remote.start();
  return remote;
}

/** One remote command, from its spec to its release (see RemoteState). */
class RemoteProcess implements ExecutedProcess {
  readonly pty: boolean;
  readonly group: RemoteGroup;
  readonly leaderExited: Promise<ExitStatus>;
  readonly settled: Promise<ExitStatus>;
  #state: RemoteState = { phase: "starting" };
  readonly #session: RemoteSession;
  readonly #request: ExecutorSpawnRequest;
  readonly #token = randomBytes(8).toString("hex");
  readonly #cwd: string;
  readonly #started = new Outcome<number>();
  readonly #exit = new Outcome<ExitStatus>();
  readonly #unsubscribe: () => void;
  /** The local ssh or docker client carrying the session; set once it runs. */
  #client: LocalClient | undefined;
  /** A kill under way holds the drain open until it is done (`holdDrainUntil`). */
  readonly #drainHold = new DrainHold();
  /** Input written after a resize waits until the remote PTY has the new size (see `resize`). */
  #inputGate: Promise<void> = Promise.resolve();
  #resized: (() => void) | undefined;

  constructor(session: RemoteSession, request: ExecutorSpawnRequest) {
    this.#session = session;
    this.#request = request;
    this.pty = request.pty !== undefined;
    this.#cwd = session.remoteCwd(request.cwd);
    this.group = new RemoteGroup(session.connection, this.#token);
    this.#started.promise.catch(() => {}); // observed by start(); a late refusal is moot
    this.leaderExited = this.#exit.promise;
    this.settled = this.leaderExited.then((status) => this.#drain(status));
    this.#unsubscribe = session.connection.subscribe(this.#token, (event) => this.#onEvent(event));
    // Events are needed until release, not only until exit: a group that outlived its leader is
    // terminated on release, and its `empty` comes through here.
    this.group.onRelease(() => {
      this.#client?.stop();
      this.#unsubscribe();
    });
  }

  get pid(): number {
    return this.#client?.pid ?? -1;
  }

  get writable(): boolean {
    const live = this.#state.phase === "starting" || this.#state.phase === "running";
    return live && (this.#client?.writable ?? false);
  }

  hasExited(): boolean {
    return this.#state.phase === "exited" || this.#state.phase === "drained";
  }

  /**
   * Sends the spec, opens the session, and resolves once the launcher said `started`; rejects
   * (leaving nothing behind) when it failed, the session ended first, or no report came in time.
   */
  async start(): Promise<void> {
    const { connection, target } = this.#session;
    const request = this.#request;
    const term = request.env.TERM ?? "xterm-256color";
    const env = this.pty ? { TERM: term, ...request.requestEnv } : request.requestEnv;
    const marker = `${connection.nonce}.${this.#token}`;
    const spec = encodeSpec({ ...request, cwd: this.#cwd, env, marker });
    const timer = new AbortController();
    try {
      connection.send(`spec ${this.#token} ${specLines(spec)}`, spec);
      const client = await startLocalClient({
        argv: this.#session.sessionCommand(connection.wrapperArgv(this.#token, this.pty), this.pty),
        stdin: request.stdin,
        pty: request.pty,
        term,
        maxPendingStdinBytes: request.maxPendingStdinBytes,
        exitDrainGraceMs: request.exitDrainGraceMs,
        onData: (chunk) => {
          if (this.#state.phase !== "drained") {
            request.onData(chunk);
          }
        },
        signal: request.signal,
      });
      this.#client = client;
      void client.ended.then(this.#session.sessionEnded);
      await Promise.race([
        this.#started.promise,
        sessionEndedFirst(client, connection, target),
        startTimeout(target, timer.signal),
      ]);
    } catch (error) {
      this.#refuse(error);
      this.#client?.stop();
      this.#unsubscribe();
      this.group.release();
      throw error;
    } finally {
      timer.abort();
    }
  }

  write(data: Uint8Array): Promise<void> {
    return this.#inputGate.then(() => this.#running().write(data));
  }

  endInput(data?: Uint8Array): Promise<void> {
    return this.#inputGate.then(() => this.#running().endInput(data));
  }

  holdDrainUntil(done: Promise<unknown>): void {
    this.#drainHold.until(done);
  }

  // The local PTY's size reaches the remote one through ssh or docker too, but docker resizes
  // by an API call that input may overtake: the agent sets it on the remote PTY itself, and
  // input written meanwhile waits for its answer (at most RESIZE_WAIT_MS).
  resize(cols: number, rows: number): void {
    this.#running().resize(cols, rows);
    const done = new Promise<void>((resolve) => (this.#resized = resolve));
    try {
      this.#session.connection.send(`resize ${this.#token} ${cols}x${rows}`);
    } catch {
      return; // the connection is gone: the terminal is ending, its size no longer matters
    }
    this.#inputGate = Promise.race([done, delay(RESIZE_WAIT_MS, undefined, { ref: false })]);
  }

  #onEvent(event: RemoteEvent): void {
    this.group.onEvent(event);
    const { target } = this.#session;
    switch (event.kind) {
      case "started":
        if (this.#state.phase === "starting") {
          this.#state = { phase: "running", pid: event.pid };
          this.#started.resolve(event.pid);
        }
        break;
      case "failed":
        this.#refuse(startFailure(event, this.#request.file, this.#cwd, target));
        break;
      case "exit":
        this.#exited({ exitCode: event.exitCode, signal: event.signal });
        break;
      case "resized":
        this.#resized?.();
        break;
      case "lost":
        this.#refuse(new TerminalError("spawn_failed", `The remote wrapper on ${target} vanished`));
        this.#exited(
          LOST_STATUS,
          `the remote wrapper of this command on ${target} was killed; its process group was SIGKILLed`,
        );
        break;
      case "connection-lost":
        this.#refuse(new TerminalError("spawn_failed", `Lost ${target}: ${event.reason}`));
        this.#exited(
          LOST_STATUS,
          `lost the connection to ${target} (${event.reason}); the command's own exit status is unknown, and the other side kills its process group`,
        );
        break;
      default:
        break;
    }
  }

  #refuse(error: unknown): void {
    if (this.#state.phase === "starting") {
      const refusal =
        error instanceof TerminalError ? error : new TerminalError("spawn_failed", String(error));
      this.#state = { phase: "refused", error: refusal };
      this.#started.reject(refusal);
    }
  }

  /** The exit status is known (once); a notice says why, beside the output, when it is not the wrapper's. */
  #exited(status: ExitStatus, note?: string): void {
    const { phase } = this.#state;
    if (phase === "exited" || phase === "drained") {
      return;
    }
    if (note !== undefined) {
      this.#request.onNotice?.(`[acp-terminal] ${note}`);
    }
    if (phase !== "refused") {
      this.#state = { phase: "exited", status };
    }
    this.#exit.resolve(status);
  }

  /** After the exit: the session's output to its end, then no more. */
  async #drain(status: ExitStatus): Promise<ExitStatus> {
    const client = this.#client;
    if (client) {
      const drained = await drainUntilQuiet(
        client.ended,
        this.#request.exitDrainGraceMs,
        this.#request.signal,
        () => client.bytesRead(),
        this.#drainHold.current,
      );
      if (!drained) {
        client.stop(); // a background process holds the session's output: stop reading it
      }
    }
    if (this.#state.phase === "exited") {
      this.#state = { phase: "drained", status };
    }
    return status;
  }

  /** The client, for a method that is only called on a started process. */
  #running(): LocalClient {
    if (!this.#client) {
      throw new TerminalError(
        "spawn_failed",
        `The command has not started on ${this.#session.target}`,
      );
    }
    return this.#client;
  }
}
