import {
  client,
  type AnyMessage,
  type ClientConnection,
  type Stream,
} from "@agentclientprotocol/sdk";
import { bindTerminalHost, type TerminalBinding, type TerminalHost } from "acp-terminal";
import { EXTENSION_METHODS } from "acp-terminal/protocol";
import { errorAnswer } from "./json-rpc.js";
import { idKey } from "./pending-requests.js";
import type { RpcId } from "./wire-message.js";

/** The agent's requests the proxy answers itself when it serves terminals. */
const SERVED_METHODS: ReadonlySet<string> = new Set([
  "terminal/create",
  "terminal/output",
  "terminal/wait_for_exit",
  "terminal/kill",
  "terminal/release",
  ...Object.values(EXTENSION_METHODS),
]);

const CANCEL_REQUEST = "$/cancel_request";
/** The agent's requests answered here at once (a wait_for_exit waits as long as its command). */
export const MAX_SERVED_IN_FLIGHT = 1024;
/** Requests served whatever else waits: they end what waits (a kill, a release). */
const ALWAYS_SERVED: ReadonlySet<string> = new Set(["terminal/kill", "terminal/release"]);

/**
 * The agent's terminals served by the proxy: the library's `bindTerminalHost` on an SDK client
 * connection that sees only the requests routed to it (`terminal/*`, the `_acp-terminal/*`
 * extensions, and `$/cancel_request` for one of those), and whose answers go to `send`. The
 * sessions it serves are the ones the proxy saw the editor open (`addSession`), since the editor's
 * `session/new` never passes through this connection. `close()` releases every terminal.
 */
export class TerminalService {
  readonly #connection: ClientConnection;
  readonly #binding: TerminalBinding;
  readonly #incoming: WritableStreamDefaultWriter<AnyMessage>;
  /** Requests being answered here (a cancel for one of them is routed here too). */
  readonly #answering = new Set<string>();

  constructor(
    readonly host: TerminalHost,
    private readonly send: (message: AnyMessage) => void,
    options: {
      sessionCwd: (sessionId: string) => string | undefined;
      onError: (error: unknown, where: string) => void;
    },
  ) {
    const app = client({ name: "acp-terminal proxy" });
    this.#binding = bindTerminalHost(app, host, {
      sessionCwd: (sessionId) => options.sessionCwd(sessionId),
      onError: options.onError,
    });
    const toService = new TransformStream<AnyMessage, AnyMessage>();
    const fromService = new WritableStream<AnyMessage>({
      write: (message) => {
        if ("id" in message && !("method" in message)) {
          this.#answering.delete(idKey(message.id));
        }
        send(message);
      },
    });
    const stream: Stream = { readable: toService.readable, writable: fromService };
    this.#incoming = toService.writable.getWriter();
    this.#connection = app.connect(stream);
  }

  /** Whether a request of the agent's with this method is answered here. */
  serves(method: string): boolean {
    return SERVED_METHODS.has(method);
  }

  /** Whether a `$/cancel_request` names a request being answered here. */
  cancels(params: unknown): boolean {
    const requestId: unknown =
      typeof params === "object" && params !== null ? Reflect.get(params, "requestId") : undefined;
    return (
      (typeof requestId === "string" || typeof requestId === "number") &&
      this.#answering.has(idKey(requestId))
    );
  }

  /**
   * A request (or a cancel) of the agent's for this connection. Past MAX_SERVED_IN_FLIGHT requests
   * waiting, one more is answered with an error at once (not a kill or a release, which end what
   * waits).
   */
  receive(message: Record<string, unknown> & { id?: RpcId; method: string }): void {
    if (message.method !== CANCEL_REQUEST && message.id !== undefined) {
      if (this.#answering.size >= MAX_SERVED_IN_FLIGHT && !ALWAYS_SERVED.has(message.method)) {
        const refused = errorAnswer(
          message.id,
          `Too many terminal requests waiting (${MAX_SERVED_IN_FLIGHT}): ${message.method} was not served; wait for their answers`,
        );
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- a JSON-RPC error answer built just above
        this.send(refused as AnyMessage);
        return;
      }
      this.#answering.add(idKey(message.id));
    }
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- a JSON-RPC request or notification read from the wire; the SDK's connection checks its params
    this.#incoming.write(message as AnyMessage).catch(() => undefined);
  }

  /** The editor opened this session: the agent may have terminals in it. */
  addSession(sessionId: string): void {
    this.#binding.addSession(this.#connection, sessionId);
  }

  /** The editor closed this session: its terminals are killed and released. */
  releaseSession(sessionId: string): Promise<void> {
    const connectionId = this.#binding.connectionIdOf(this.#connection);
    return this.host.releaseAll({ connectionId, sessionId });
  }

  /** Releases every terminal (the connection closes) and disposes of the host. */
  async close(): Promise<void> {
    await this.#incoming.close().catch(() => undefined);
    this.#connection.close();
    await this.#binding.whenIdle();
    await this.host.dispose();
  }
}
