import type { Stream } from "@agentclientprotocol/sdk";
// The unstable v2 surface: the stable one plus MCP-over-ACP (`{type: "acp"}` servers, mcp/message).
import {
  client,
  methods,
  PROTOCOL_VERSION as V2,
  type ActiveSession,
  type ClientConnection,
  type InitializeResponse,
  type McpServer,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { boundedRequestError, cutText } from "acp-terminal/internal";
import { v2OfferAnsweredWith, type Ending } from "../agent/failure-messages.js";
import type { ApprovalFlags } from "acp-terminal/approval";
import { stdioMcpServer } from "../conversation/mcp-tools-offer.js";
import {
  ConnectionClosed,
  type AgentIntro,
  type DriverContext,
  type ProtocolDriver,
  type SessionStarted,
  type TurnEnd,
  type UserMcpServer,
} from "../conversation/driver.js";
import { authMethodsOf } from "../agent/auth-methods.js";
import type { TerminalRecord } from "../view/renderer.js";
import type { TerminalLimits } from "../command/terminal-limits.js";
import { methodNotFound } from "./method-not-found.js";
import { permissionAsk } from "../readers/v2-permission.js";
import { ChunkLane } from "../readers/v2-chunk-lane.js";
import { V2Session } from "../readers/v2-session.js";
import { cancelTerminals } from "./v2-terminal-cancel.js";
import { V2Turns } from "./v2-turns.js";

/** Characters of an agent's error message quoted in an ending. */
const MAX_QUOTED_CHARS = 500;

export interface V2Options extends TerminalLimits {
  /** The session's cwd (`session/new`, and where the MCP tools' commands start). */
  cwd: string;
  /** `--yes`, `--allow`, `--sandbox`: the stdio MCP server's policy flags. */
  approval: ApprovalFlags;
  /** `--on`: the stdio MCP server runs its commands there too. */
  on?: string | undefined;
  /** The CLI's version, for `info`. */
  version: string;
  /** The version the agent answered the v2 offer with, when not 2: the conversation ends, saying so. */
  answeredVersion?: unknown;
}

/**
 * ACP v2 (the draft, SDK `experimental/v2`) with agent-owned terminals: the agent runs its commands
 * and reports them (`V2Session` turns its updates into view events). A prompt is answered as soon
 * as it is taken; where the turn ends is read from the updates (`V2Turns`). Ctrl-C first sends
 * `terminal/cancel` to every running terminal that offers it (v2-terminal-cancel.ts), then
 * cancels the turn. Under `--mcp-tools` the CLI's host
 * serves the MCP tools over the connection (MCP-over-ACP) or as a stdio server, as the agent takes.
 */
export class V2AgentTerminals implements ProtocolDriver {
  readonly protocol = "v2";
  readonly hostsTerminals = false;
  /** Stops reading the session's updates, at the end (not on Ctrl-C: the turn's end is wanted). */
  readonly #following = new AbortController();
  #connection: ClientConnection | undefined;
  #context: DriverContext | undefined;
  #updates: V2Session | undefined;
  #init: InitializeResponse | undefined;
  #session: ActiveSession | undefined;
  readonly #turns = new V2Turns();
  #intro: AgentIntro | undefined;
  #lane: ChunkLane | undefined;

  constructor(private readonly options: V2Options) {}

  get closed(): Promise<void> {
    return this.#live().connection.closed;
  }

  get intro(): AgentIntro | undefined {
    return this.#intro;
  }

  connect(stream: Stream, context: DriverContext): void {
    this.#context = context;
    this.#updates = new V2Session(context.view, this.options);
    const app = client({ name: "acp-terminal" })
      .onRequest("session/request_permission", ({ params }) => {
        this.#updates?.announce(Reflect.get(Object(params.subject), "toolCall"));
        return context.askPermission(
          permissionAsk(params, (id) => this.#updates?.diffsOf(id) ?? []),
        );
      })
      .onRequest(methods.client.mcp.message, (request) => {
        if (context.mcpTools === undefined) {
          throw boundedRequestError(-32601, "Method not found: mcp/message (no --mcp-tools)");
        }
        return context.mcpTools.handleMessage(request);
      })
      .onRequest("*", methodNotFound);
    const updates = this.#updates;
    this.#lane = new ChunkLane(
      () => this.#session?.sessionId,
      (terminalId, data) => updates.chunk(terminalId, data),
    );
    if (context.tapLines === undefined) {
      this.#connection = app.connect(this.#lane.wrap(stream));
    } else {
      context.tapLines(this.#lane.lineTap);
      this.#connection = app.connect(stream);
    }
  }

  async initialize(): Promise<Ending | undefined> {
    const { answeredVersion } = this.options;
    if (answeredVersion !== undefined) {
      return v2OfferAnsweredWith(answeredVersion);
    }
    const { connection, context } = this.#live();
    const init = await this.#untilClosed(
      connection.agent.request("initialize", {
        protocolVersion: V2,
        info: { name: "acp-terminal", version: this.options.version },
        capabilities: v2ClientCapabilities(context.terminalLogin),
      }),
    ).catch((error: unknown) => {
      throw notV2Shaped(error) ?? error;
    });
    this.#init = init;
    const mcp = init.capabilities?.session?.mcp;
    this.#intro = {
      dialect: "v2",
      protocolVersion: init.protocolVersion,
      agentInfo: init.info ?? null,
      capabilities: init.capabilities ?? null,
      authMethods: authMethodsOf(init.authMethods),
      canLoad: false,
      canResume: false,
      mcp: { http: mcp?.http != null, sse: false },
    };
    return undefined;
  }

  async authenticate(methodId: string): Promise<void> {
    await this.#untilClosed(this.#live().connection.agent.request("auth/login", { methodId }));
  }

  async startSession(
    resume: string | undefined,
    userServers: readonly UserMcpServer[],
  ): Promise<SessionStarted> {
    const { connection } = this.#live();
    if (resume !== undefined) {
      throw new Error(
        "--session: acp-terminal resumes sessions over ACP v1 only; run with --protocol v1-meta",
      );
    }
    const mcpServers = [...(await this.#mcpServers()), ...userServers.flatMap(v2Server)];
    const session = await this.#untilClosed(
      connection.agent.buildSession({ cwd: this.options.cwd, mcpServers }).start(),
    );
    this.#session = session;
    void this.#turns.follow(session, this.#following.signal, (update) => {
      this.#lane?.delivered();
      this.#updates?.update(update);
    });
    return { sessionId: session.sessionId, how: "new" };
  }

  async prompt(text: string): Promise<TurnEnd> {
    const session = this.#session;
    if (session === undefined) {
      throw new Error("the v2 driver has no session: call startSession() first");
    }
    const ended = this.#turns.started();
    await this.#untilClosed(session.prompt(text));
    return this.#untilClosed(ended);
  }

  cancelTurn(): void {
    const session = this.#session;
    if (session === undefined || this.#connection === undefined) {
      return;
    }
    this.#connection.agent.notify("session/cancel", { sessionId: session.sessionId }).catch(() => {
      // The agent is gone or its stdin is closed: the ending is decided elsewhere.
    });
  }

  /** Ctrl-C: `terminal/cancel` to every running terminal that offers it, a short wait, then the turn. */
  interrupt(cancelTurn: () => void): void {
    const session = this.#session;
    const view = this.#context?.view;
    const running = this.#updates?.runningTerminalIds() ?? [];
    const cancels =
      session === undefined || view === undefined
        ? Promise.resolve()
        : cancelTerminals(session, running, (text) => view.notice(text));
    void cancels.finally(cancelTurn);
  }

  terminalRecords(): TerminalRecord[] {
    return this.#updates?.terminalRecords() ?? [];
  }

  runningTerminals(): number {
    return this.#updates?.runningTerminalIds().length ?? 0;
  }

  detach(): void {
    this.#following.abort();
    this.#session?.dispose();
  }

  close(): void {
    this.#connection?.close();
  }

  /** The `mcpServers` of `session/new`: the MCP tools, in the kind of server the agent takes. */
  async #mcpServers(): Promise<McpServer[]> {
    const { connection, context } = this.#live();
    if (context.mcpTools === undefined) {
      return [];
    }
    const mcp = this.#init?.capabilities?.session?.mcp;
    if (mcp?.acp != null) {
      // MCP-over-ACP: the tools run in the CLI's host, under its approval policy; the agent
      // publishes each run as an agent-owned terminal.
      return [await context.mcpTools.overAcp(connection.agent)];
    }
    if (mcp?.stdio != null) {
      const { name, command, args } = stdioMcpServer(this.options);
      return [{ type: "stdio", name, command, args, env: [] }];
    }
    context.view.notice(
      "acp-terminal: --mcp-tools: the agent takes neither MCP-over-ACP nor stdio MCP servers (capabilities.session.mcp), so the terminals are not offered as tools",
    );
    return [];
  }

  /** `work`, or a `ConnectionClosed` when the connection closes first (nothing else would fail). */
  #untilClosed<T>(work: Promise<T>): Promise<T> {
    const { connection } = this.#live();
    const closed = connection.closed.then(() => {
      throw new ConnectionClosed(connection.signal.reason);
    });
    return Promise.race([work, closed]);
  }

  #live(): { connection: ClientConnection; context: DriverContext } {
    if (this.#connection === undefined || this.#context === undefined) {
      throw new Error("the v2 driver is not connected: call connect() first");
    }
    return { connection: this.#connection, context: this.#context };
  }
}

/** v2's `capabilities`: terminal logins when a person is at the TTY. */
export function v2ClientCapabilities(terminalLogin: boolean): Record<string, unknown> {
  return terminalLogin ? { auth: { terminal: {} } } : {};
}

/** A user's MCP server in v2's shape (v2 has no sse transport: such a server is left out). */
function v2Server(server: UserMcpServer): McpServer[] {
  if (server.type === "stdio") {
    return [server];
  }
  const { name, url, headers } = server;
  return server.type === "http" ? [{ type: "http", name, url, headers }] : [];
}

/**
 * The SDK refused an answer that said version 2 but is not v2's shape (a v1 agent that answers
 * any version with 2): an error that says so, with the first problem; undefined for other errors.
 */
function notV2Shaped(error: unknown): Error | undefined {
  const issues: unknown = Reflect.get(Object(error), "issues");
  if (!Array.isArray(issues) || issues.length === 0) {
    return undefined;
  }
  const first: unknown = issues[0];
  const where: unknown = Reflect.get(Object(first), "path");
  const what: unknown = Reflect.get(Object(first), "message");
  const at = Array.isArray(where) && where.length > 0 ? `${where.join(".")}: ` : "";
  return new Error(
    `the agent answered with protocol version 2, but not in ACP v2's shape (${at}${cutText(String(what), MAX_QUOTED_CHARS)}); run with --protocol v1-meta to speak v1`,
  );
}
