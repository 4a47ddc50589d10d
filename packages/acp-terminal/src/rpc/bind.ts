import { randomUUID } from "node:crypto";
import { ClientApp, DEFAULT_MAX_MESSAGE_BYTES, type ClientContext } from "@agentclientprotocol/sdk";
import type { TerminalOwner } from "../host/types.js";
import {
  assertConnectionIdentitySupported,
  connectionOf,
  type ConnectionHandle,
} from "./connection-key.js";
import { registerCoreHandlers } from "./core-handlers.js";
import { registerExtensionHandlers } from "./extension-handlers.js";
import { outputBudgetBytes } from "./fit-output.js";
import type { TerminalHostPort } from "./host-port.js";
import type { RequestScope } from "./request-scope.js";
import { SessionRegistry, type RequestSender } from "./session-registry.js";

export interface BindOptions {
  /**
   * The cwd of a session, which the embedding client learned from `session/new`; used when
   * `terminal/create` gives none. Undefined falls back to the host's cwd.
   */
  sessionCwd?(sessionId: string, connectionId: string): string | undefined;
  /**
   * The agent's incoming message limit; `terminal/output` responses are trimmed from the front
   * to stay under it after JSON escaping. Default: the SDK's (32 MiB).
   */
  maxMessageBytes?: number;
  /** Told when releasing a closed connection's terminals fails. Default: `console.error`. */
  onError?(error: unknown, context: string): void;
}

export interface TerminalBinding {
  /** The `connectionId` the host records as owner for terminals created over `connection`. */
  connectionIdOf(connection: { readonly agent: ClientContext }): string;
  /** Connections currently served (opened and not yet closed). */
  readonly connectionCount: number;
  /** Resolves once every release started by a closed connection has finished. */
  whenIdle(): Promise<void>;
  /**
   * Marks `sessionId` as a session of `connection` although it was not created through it (a
   * proxy that created it elsewhere). Sessions from `session/new`, `session/load`,
   * `session/resume` and `session/fork` on the connection are known without this.
   */
  addSession(connection: { readonly agent: ClientContext }, sessionId: string): void;
}

interface ConnectionState extends RequestScope {
  readonly connectionId: string;
  readonly sessions: SessionRegistry;
}

/**
 * Serves `terminal/*` and the `_acp-terminal/*` extensions from `host` on every connection `app`
 * opens. Call it before `connect`/`connectWith`. Each connection gets its own connectionId; a
 * session only ever sees terminals created under its own (connectionId, sessionId), and only
 * sessions the client created or loaded on that connection may have terminals (a request naming
 * any other is -32602). When a connection closes, every terminal it owns is killed and released.
 */
export function bindTerminalHost(
  app: ClientApp,
  host: TerminalHostPort,
  options: BindOptions = {},
): TerminalBinding {
  const maxMessageBytes = checkBindable(app, options);
  const onError =
    options.onError ??
    ((error: unknown, context: string) => console.error(`acp-terminal: ${context}:`, error));
  const connections = new BoundConnections(host, onError);
  const scopeOf = (agent: ClientContext): RequestScope => connections.stateOf(connectionOf(agent));
  app.onConnect((connection) => {
    // Runs inside connect(), before the embedder can send session/new: no session is missed.
    const handle = connectionOf(connection.agent);
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the SDK's connection handle is the ConnectionContext that sends requests; the SDK does not export that type
    connections.stateOf(handle).sessions.observe(handle as unknown as RequestSender);
  });
  registerCoreHandlers(app, {
    host,
    scopeOf,
    sessionCwd: (sessionId, connectionId) => options.sessionCwd?.(sessionId, connectionId),
    outputBudgetBytes: outputBudgetBytes(maxMessageBytes),
  });
  registerExtensionHandlers(app, host, scopeOf);

  return {
    connectionIdOf: (connection) =>
      connections.stateOf(connectionOf(connection.agent)).connectionId,
    get connectionCount() {
      return connections.live;
    },
    addSession: (connection, sessionId) => {
      if (typeof sessionId !== "string" || sessionId.length === 0) {
        throw new TypeError(
          `addSession: sessionId must be a non-empty string, received ${typeof sessionId}`,
        );
      }
      connections.stateOf(connectionOf(connection.agent)).sessions.add(sessionId);
    },
    whenIdle: () => connections.whenIdle(),
  };
}

/** Throws when `app` or the options cannot be served; returns the agent's message limit. */
function checkBindable(app: ClientApp, options: BindOptions): number {
  if (!(app instanceof ClientApp)) {
    throw new TypeError(
      "bindTerminalHost: app is not a ClientApp from the @agentclientprotocol/sdk copy acp-terminal uses; " +
        "two SDK copies cannot share error types, so error codes would be lost. Deduplicate the SDK " +
        "(one version, one copy) and create the app with its client().",
    );
  }
  assertConnectionIdentitySupported();
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes < 1024) {
    throw new RangeError(
      `bindTerminalHost: maxMessageBytes must be an integer >= 1024, received ${maxMessageBytes}`,
    );
  }
  return maxMessageBytes;
}

/**
 * The connections one binding serves: each one's state (made on first sight), how many are open,
 * and the releases of their terminals still running.
 */
class BoundConnections {
  /** Connections opened and not yet closed. */
  live = 0;
  private readonly states = new WeakMap<ConnectionHandle, ConnectionState>();
  private readonly pendingReleases = new Set<Promise<void>>();

  constructor(
    private readonly host: TerminalHostPort,
    private readonly onError: (error: unknown, context: string) => void,
  ) {}

  stateOf(handle: ConnectionHandle): ConnectionState {
    const known = this.states.get(handle);
    if (known) {
      return known;
    }
    const connectionId = randomUUID();
    // A session the agent refused to load is not one: what it started while loading goes too;
    // a session the client closed or deleted takes its terminals with it.
    const sessions = new SessionRegistry((sessionId, why) =>
      this.releaseTerminals(
        { connectionId, sessionId },
        `releasing the terminals of ${why} session ${sessionId}`,
      ),
    );
    const state: ConnectionState = {
      connectionId,
      sessions,
      connectionSignal: handle.signal,
      owner: (sessionId: string): TerminalOwner => {
        sessions.check(sessionId);
        return { connectionId, sessionId };
      },
    };
    this.states.set(handle, state);
    this.live += 1;
    if (handle.signal.aborted) {
      this.releaseConnection(connectionId);
    } else {
      handle.signal.addEventListener("abort", () => this.releaseConnection(connectionId), {
        once: true,
      });
    }
    return state;
  }

  async whenIdle(): Promise<void> {
    while (this.pendingReleases.size > 0) {
      await Promise.allSettled([...this.pendingReleases]);
    }
  }

  private releaseConnection(connectionId: string): void {
    this.live -= 1;
    this.releaseTerminals(
      { connectionId },
      `releasing the terminals of closed connection ${connectionId}`,
    );
  }

  private releaseTerminals(
    filter: { connectionId: string; sessionId?: string },
    context: string,
  ): void {
    const release = this.host
      .releaseAll(filter)
      .catch((error: unknown) => this.onError(error, context))
      .finally(() => this.pendingReleases.delete(release));
    this.pendingReleases.add(release);
  }
}
