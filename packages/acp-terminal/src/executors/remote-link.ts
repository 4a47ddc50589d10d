import { TerminalError } from "../core/errors.js";
import type { ExecutedProcess, ExecutorSpawnRequest } from "./types.js";
import {
  RemoteConnection,
  type ConnectionOptions,
  type RemotePlaceFacts,
} from "./remote-connection.js";
import { spawnRemote } from "./remote-process.js";

/** Defaults every remote executor shares; options may change them (tests use short heartbeats). */
export interface RemoteTimings {
  /**
   * How often the host pings the agent; 3 periods without an answer is a lost connection. The
   * agent kills everything when no line came for 4 periods (at least 2 s). Default 5000 ms.
   */
  heartbeatMs?: number;
  /** How long connecting (and starting the agent) may take. Default 30000 ms. */
  connectTimeoutMs?: number;
  /**
   * Sessions one connection may carry, the agent's included (sshd's MaxSessions, 10 unless its
   * configuration says otherwise); more terminals open another connection. Default: no limit.
   */
  maxSessions?: number;
}

export const DEFAULT_HEARTBEAT_MS = 5000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/** The commands of one connection: its control session's, and a terminal session's over it. */
export interface PlaceCommands {
  controlCommand(remoteArgv: string[]): string[];
  sessionCommand(remoteArgv: string[], pty: boolean): string[];
}

/** How one remote place is reached. */
export interface RemotePlace {
  target: string;
  /** The commands for a new connection (ssh: a master socket of its own). */
  connection(): PlaceCommands;
  remoteCwd(cwd: string): string;
  /** One line naming the cause and the fix of a failed connection (see ConnectionOptions). */
  explain?: ConnectionOptions["explain"];
  /** Runs before the first connection opens (again after it failed): a dev container's `up`. */
  prepare?(): Promise<void>;
  /** Runs after every connection closed (a container's removal, a socket directory's). */
  afterClose?(): Promise<void>;
}

interface Pooled {
  opening: Promise<RemoteConnection>;
  commands: PlaceCommands;
  /** Terminal sessions open on it (their local clients still run). */
  sessions: number;
}

/**
 * Connections to one place: the first opened on the first spawn, another only when every open
 * one carries `maxSessions`, and a lost one replaced on the next spawn (terminals that ran on it
 * were told so). Closing ends them and what runs there.
 */
export class RemoteLink {
  readonly #pool: Pooled[] = [];
  #closed = false;
  #prepared: Promise<void> | undefined;
  #facts: RemotePlaceFacts | undefined;

  constructor(
    readonly place: RemotePlace,
    private readonly timings: RemoteTimings,
  ) {}

  async spawn(request: ExecutorSpawnRequest): Promise<ExecutedProcess> {
    const pooled = this.#pick();
    pooled.sessions++;
    let ended = false;
    const sessionEnded = (): void => {
      if (!ended) {
        ended = true;
        pooled.sessions--;
      }
    };
    try {
      const connection = await pooled.opening;
      return await spawnRemote(
        {
          connection,
          target: this.place.target,
          sessionCommand: (argv, pty) => pooled.commands.sessionCommand(argv, pty),
          remoteCwd: (cwd) => this.place.remoteCwd(cwd),
          sessionEnded,
        },
        request,
      );
    } catch (error) {
      sessionEnded();
      throw error;
    }
  }

  /** What the newest open connection found out about the place. */
  facts(): RemotePlaceFacts | undefined {
    return this.#facts;
  }

  /** Opens a connection if none is open (it stays for the next spawn); never rejects. */
  async probe(): Promise<void> {
    if (this.#closed) {
      return;
    }
    const pooled = this.#pool[0] ?? this.#pick();
    await pooled.opening.catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const all = this.#pool.splice(0);
    await Promise.all(
      all.map(async ({ opening }) => (await opening.catch(() => undefined))?.close()),
    );
    await this.place.afterClose?.();
  }

  /** An open connection with room for one more session, else a new one. */
  #pick(): Pooled {
    if (this.#closed) {
      throw new TerminalError("disposed", `The executor for ${this.place.target} was closed`);
    }
    const room = (this.timings.maxSessions ?? Infinity) - 1; // the agent's session counts
    const open = this.#pool.find((pooled) => pooled.sessions < room);
    if (open) {
      return open;
    }
    const commands = this.place.connection();
    const connection = new RemoteConnection({
      target: this.place.target,
      command: (argv) => commands.controlCommand(argv),
      heartbeatMs: this.timings.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      connectTimeoutMs: this.timings.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      explain: this.place.explain,
    });
    const prepared = this.#prepared ?? this.place.prepare?.() ?? Promise.resolve();
    this.#prepared = prepared.catch((error: unknown) => {
      this.#prepared = undefined;
      throw error;
    });
    const pooled: Pooled = {
      opening: this.#prepared.then(() => connection.open()).then(() => connection),
      commands,
      sessions: 0,
    };
    // A connection that failed to open or was lost takes no more terminals.
    pooled.opening.then(
      () => {
        this.#facts = connection.facts;
        connection.onLost(() => this.#drop(pooled));
      },
      () => this.#drop(pooled),
    );
    this.#pool.push(pooled);
    return pooled;
  }

  #drop(pooled: Pooled): void {
    const index = this.#pool.indexOf(pooled);
    if (index >= 0) {
      this.#pool.splice(index, 1);
    }
  }
}
