import { TerminalError } from "../../core/errors.js";
import type { ExecutedProcess, ExecutorSpawnRequest } from "../types.js";
import { RemoteConnection } from "./connection.js";
import { spawnRemote } from "./remote-process.js";

/** Defaults every remote executor shares; options may change them (tests use short heartbeats). */
export interface RemoteTimings {
  /** How often the host pings the agent; 3 periods without an answer is a lost connection. The
   * agent kills everything when no line came for 4 periods (at least 2 s). Default 5000 ms. */
  heartbeatMs?: number;
  /** How long connecting (and starting the agent) may take. Default 30000 ms. */
  connectTimeoutMs?: number;
}

export const DEFAULT_HEARTBEAT_MS = 5000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/** How one remote place is reached: the control session's command, a terminal's, the cwd there. */
export interface RemotePlace {
  target: string;
  controlCommand(remoteArgv: string[]): string[];
  sessionCommand(remoteArgv: string[], pty: boolean): string[];
  remoteCwd(cwd: string): string;
  /** Runs after the connection closed (a container's removal). */
  afterClose?(): Promise<void>;
}

/**
 * One connection to one place, opened on the first spawn and opened anew on the next spawn after it
 * was lost (terminals that ran on the lost one were told so). Closing ends it and what runs there.
 */
export class RemoteLink {
  #connecting: Promise<RemoteConnection> | undefined;
  #closed = false;

  constructor(
    readonly place: RemotePlace,
    private readonly timings: RemoteTimings,
  ) {}

  async spawn(request: ExecutorSpawnRequest): Promise<ExecutedProcess> {
    const connection = await this.#connection();
    return spawnRemote(
      {
        connection,
        target: this.place.target,
        sessionCommand: (argv, pty) => this.place.sessionCommand(argv, pty),
        remoteCwd: (cwd) => this.place.remoteCwd(cwd),
      },
      request,
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    const connecting = this.#connecting;
    this.#connecting = undefined;
    const connection = await connecting?.catch(() => undefined);
    await connection?.close();
    await this.place.afterClose?.();
  }

  async #connection(): Promise<RemoteConnection> {
    if (this.#closed) {
      throw new TerminalError("disposed", `The executor for ${this.place.target} was closed`);
    }
    const current = await this.#connecting?.catch(() => undefined);
    if (current && current.lost === undefined) {
      return current;
    }
    const connection = new RemoteConnection({
      target: this.place.target,
      command: (argv) => this.place.controlCommand(argv),
      heartbeatMs: this.timings.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      connectTimeoutMs: this.timings.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    });
    const opening = connection.open().then(() => connection);
    this.#connecting = opening;
    return opening;
  }
}
