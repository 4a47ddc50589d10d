import {
  client,
  PROTOCOL_VERSION,
  type ClientConnection,
  type InitializeRequest,
  type InitializeResponse,
  type Stream,
} from "@agentclientprotocol/sdk";
import { bindTerminalHost, terminalClientCapabilities, type TerminalHost } from "acp-terminal";
import { unsupportedProtocol, type Ending } from "../agent/failure-messages.js";
import { parsePermissionParams } from "../ask/permission-params.js";
import type { DriverContext, ProtocolDriver, TurnEnd } from "../conversation/driver.js";
import type { TerminalRecord } from "../view/renderer.js";
import { methodNotFound } from "./method-not-found.js";
import { followHost } from "./terminal-ledger.js";
import { showV1Update } from "./v1-updates.js";

export interface V1Options {
  /** The agent's command line, as failures name it. */
  agent: string;
  /** The session's cwd (`session/new`, and the terminals' default). */
  cwd: string;
  /** The CLI's version, for `clientInfo`. */
  version: string;
}

/**
 * ACP v1 with client terminals: the agent asks the CLI to run its commands (`terminal/create` and
 * the rest, served from the CLI's host by `bindTerminalHost`), which the view shows as the CLI's
 * own terminals; `session/update`s become view events (`showV1Update`). Under `--mcp-tools` the
 * same host serves the MCP tools instead of the v1 terminal capability.
 */
export class V1ClientTerminals implements ProtocolDriver {
  readonly protocol = "v1";
  readonly hostsTerminals = true;
  #connection: ClientConnection | undefined;
  #context: DriverContext | undefined;
  #host: TerminalHost | undefined;
  #init: InitializeResponse | undefined;
  #sessionId: string | undefined;
  #terminals: () => TerminalRecord[] = () => [];

  constructor(private readonly options: V1Options) {}

  get closed(): Promise<void> {
    return this.#live().connection.closed;
  }

  connect(stream: Stream, context: DriverContext): void {
    const { view, host, mcpTools } = context;
    if (host === undefined) {
      throw new Error("the v1 driver hosts the agent's terminals: connect it with a host");
    }
    this.#host = host;
    this.#context = context;
    this.#terminals = followHost(host, view);
    const app = client({ name: "acp-terminal" })
      .onNotification("session/update", ({ params }) => showV1Update(params.update, view))
      .onRequest("session/request_permission", parsePermissionParams, ({ params }) =>
        context.askPermission(params),
      );
    mcpTools?.listen(app);
    app.onRequest("*", methodNotFound);
    bindTerminalHost(app, host, {
      sessionCwd: () => this.options.cwd,
      onError: (error, where) => view.notice(`acp-terminal: ${where}: ${String(error)}`),
    });
    this.#connection = app.connect(stream);
  }

  async initialize(): Promise<Ending | undefined> {
    const { connection, context } = this.#live();
    const params: InitializeRequest = {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: context.mcpTools
        ? context.mcpTools.clientCapabilities()
        : terminalClientCapabilities(this.#host),
      clientInfo: { name: "acp-terminal", version: this.options.version },
    };
    const init = await connection.agent.request("initialize", params);
    if (init.protocolVersion !== PROTOCOL_VERSION) {
      return unsupportedProtocol(this.options.agent, init.protocolVersion, PROTOCOL_VERSION);
    }
    this.#init = init;
    return undefined;
  }

  async startSession(): Promise<void> {
    const { connection, context } = this.#live();
    const mcpServers =
      context.mcpTools && this.#init
        ? await context.mcpTools.mcpServers(connection, this.#init)
        : [];
    const session = await connection.agent.request("session/new", {
      cwd: this.options.cwd,
      mcpServers,
    });
    this.#sessionId = session.sessionId;
  }

  async prompt(text: string): Promise<TurnEnd> {
    const { connection } = this.#live();
    const response = await connection.agent.request("session/prompt", {
      sessionId: this.#sessionId ?? "",
      prompt: [{ type: "text", text }],
    });
    return { stopReason: response.stopReason };
  }

  cancelTurn(): void {
    if (this.#sessionId === undefined || this.#connection === undefined) {
      return;
    }
    this.#connection.agent.notify("session/cancel", { sessionId: this.#sessionId }).catch(() => {
      // The agent is gone or its stdin is closed: the ending is decided elsewhere.
    });
  }

  /** Ctrl-C: the turn is cancelled, and every terminal it still has is killed and released. */
  interrupt(cancelTurn: () => void): void {
    cancelTurn();
    const host = this.#host;
    for (const info of host?.list() ?? []) {
      if (info.state !== "released") {
        host?.release(info.owner, info.terminalId).catch((error: unknown) => {
          this.#context?.view.notice(
            `Could not release terminal ${info.terminalId}: ${String(error)}`,
          );
        });
      }
    }
  }

  terminalRecords(): TerminalRecord[] {
    return this.#terminals();
  }

  detach(): void {
    // Updates are shown until the connection closes.
  }

  close(): void {
    this.#connection?.close();
  }

  #live(): { connection: ClientConnection; context: DriverContext } {
    if (this.#connection === undefined || this.#context === undefined) {
      throw new Error("the v1 driver is not connected: call connect() first");
    }
    return { connection: this.#connection, context: this.#context };
  }
}
