import {
  client,
  PROTOCOL_VERSION,
  type ClientCapabilities,
  type ClientConnection,
  type InitializeRequest,
  type InitializeResponse,
  type McpServer,
  type Stream,
} from "@agentclientprotocol/sdk";
import { bindTerminalHost, terminalClientCapabilities, type TerminalHost } from "acp-terminal";
import { authMethodsOf } from "../agent/auth-methods.js";
import { unsupportedProtocol, type Ending } from "../agent/failure-messages.js";
import { parsePermissionParams } from "../ask/permission-params.js";
import type { TerminalLimits } from "../command/terminal-limits.js";
import type {
  AgentIntro,
  DriverContext,
  ProtocolDriver,
  SessionStarted,
  TurnEnd,
  UserMcpServer,
} from "../conversation/driver.js";
import type { TerminalRecord } from "../view/renderer.js";
import { methodNotFound } from "./method-not-found.js";
import { followHost } from "../readers/terminal-ledger.js";
import {
  META_TERMINAL_CAPABILITIES,
  MetaTerminals,
  replacesOnTerminalOutput,
} from "../readers/v1-meta-terminals.js";
import { MetaLane } from "../readers/v1-meta-lane.js";
import { describeSubject, permissionSubject } from "../readers/permission-subject.js";
import { SeenToolCalls } from "../readers/seen-tool-calls.js";
import { showV1Update } from "../readers/v1-updates.js";

export interface V1Options extends TerminalLimits {
  /** The agent's command line, as failures name it. */
  agent: string;
  /** The session's cwd (`session/new`, and the terminals' default). */
  cwd: string;
  /** The CLI's version, for `clientInfo`. */
  version: string;
  /** Declare `_meta` terminal output (the v1-meta dialect); `_meta` reports are read either way. */
  declareMeta: boolean;
  /** `--no-fs`: no file system declared, and the agent's `fs/*` requests are unknown methods. */
  noFs?: boolean;
  /** Called once the agent answered `initialize` in v1 (a fallback remembers then that v1 works). */
  initialized?: (() => void) | undefined;
}

/**
 * The `clientCapabilities` of v1 (sent in the driver's `initialize`, or in the v2 offer that a
 * v1 agent answers): client terminals (or, under `--mcp-tools`, none: the tools serve them), the
 * file system, terminal logins when a person is at the TTY, and `_meta` terminal output.
 */
export function v1ClientCapabilities(options: {
  mcpTools: boolean;
  declareMeta: boolean;
  terminalLogin: boolean;
  /** The host (or what it will be: its containment) whose terminals are offered. */
  host?: object | undefined;
  /** `--no-fs`: the agent reads and writes files itself. */
  noFs?: boolean;
}): ClientCapabilities {
  const terminals = options.mcpTools
    ? { terminal: false, _meta: {} }
    : terminalClientCapabilities(options.host);
  return {
    terminal: terminals.terminal,
    fs: { readTextFile: options.noFs !== true, writeTextFile: options.noFs !== true },
    ...(options.terminalLogin ? { auth: { terminal: true } } : {}),
    _meta: { ...terminals._meta, ...(options.declareMeta ? META_TERMINAL_CAPABILITIES : {}) },
  };
}

/**
 * ACP v1: the agent's commands run either in the CLI's host (client terminals: `terminal/create`
 * and the rest, served by `bindTerminalHost`, shown as the CLI's own terminals) or by the agent
 * itself, reported in tool calls' `_meta` (`MetaTerminals`, shown as agent terminals); the
 * agent's file requests go to the context's `ClientFiles`; `session/update`s become view events
 * (`showV1Update`). Under `--mcp-tools` the same host serves the MCP tools instead of the v1
 * terminal capability.
 */
export class V1ClientTerminals implements ProtocolDriver {
  readonly protocol = "v1";
  readonly hostsTerminals = true;
  #connection: ClientConnection | undefined;
  #context: DriverContext | undefined;
  #host: TerminalHost | undefined;
  #meta: MetaTerminals | undefined;
  #init: InitializeResponse | undefined;
  #intro: AgentIntro | undefined;
  #sessionId: string | undefined;
  #terminals: () => TerminalRecord[] = () => [];
  /** The CLI's terminals created during the turn under way (Ctrl-C releases these only). */
  readonly #turnTerminals = new Set<string>();

  constructor(private readonly options: V1Options) {}

  get closed(): Promise<void> {
    return this.#live().connection.closed;
  }

  get intro(): AgentIntro | undefined {
    return this.#intro;
  }

  connect(stream: Stream, context: DriverContext): void {
    const { view, host, mcpTools, files } = context;
    if (host === undefined) {
      throw new Error("the v1 driver hosts the agent's terminals: connect it with a host");
    }
    this.#host = host;
    this.#context = context;
    this.#terminals = followHost(host, view);
    host.on("create", ({ terminalId }) => this.#turnTerminals.add(terminalId));
    const meta = new MetaTerminals(view, this.options, false);
    this.#meta = meta;
    const lane = new MetaLane(
      (sessionId) => sessionId === this.#sessionId,
      ({ toolCallId, key, terminalId, bytes }) => {
        meta.output(key, terminalId, bytes);
        if (view.wantsRawUpdates === true) {
          const data = Buffer.from(bytes).toString("utf8");
          const update = { terminal_id: terminalId, data };
          view.rawUpdate(
            { sessionUpdate: "tool_call_update", toolCallId, _meta: { [key]: update } },
            "v1",
          );
        }
      },
    );
    context.tapLines?.(lane.lineTap);
    const seen = new SeenToolCalls();
    const app = client({ name: "acp-terminal" })
      .onNotification("session/update", ({ params }) => {
        lane.delivered();
        const { update } = params;
        if (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") {
          meta.read(update);
          seen.seen(update.toolCallId);
          seen.showed(update.toolCallId, permissionSubject({ toolCall: update }).diffs);
        }
        showV1Update(update, view);
      })
      .onRequest("session/request_permission", parsePermissionParams, ({ params }) => {
        seen.announce(params.toolCall, view);
        const subject = permissionSubject(params, seen.diffsOf(params.toolCall.toolCallId));
        return context.askPermission({ ...params, details: describeSubject(subject), subject });
      });
    if (this.options.noFs !== true) {
      app
        .onRequest("fs/read_text_file", ({ params }) => files.read(params))
        .onRequest("fs/write_text_file", ({ params }) => files.write(params));
    }
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
    // A remote executor's first connection opens now, so the capability can say its OS and shell.
    await this.#host?.probeExecutor();
    const params: InitializeRequest = {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: v1ClientCapabilities({
        mcpTools: context.mcpTools !== undefined,
        declareMeta: this.options.declareMeta,
        terminalLogin: context.terminalLogin,
        host: this.#host,
        ...(this.options.noFs === true ? { noFs: true } : {}),
      }),
      clientInfo: { name: "acp-terminal", version: this.options.version },
    };
    const init = await connection.agent.request("initialize", params);
    if (init.protocolVersion !== PROTOCOL_VERSION) {
      return unsupportedProtocol(this.options.agent, init.protocolVersion, PROTOCOL_VERSION);
    }
    this.#init = init;
    this.options.initialized?.();
    const name: unknown = init.agentInfo?.name;
    if (this.#meta !== undefined) {
      this.#meta.replaceOnOutput = replacesOnTerminalOutput(name);
    }
    const capabilities = init.agentCapabilities;
    this.#intro = {
      dialect: this.options.declareMeta ? "v1-meta" : "v1",
      protocolVersion: init.protocolVersion,
      agentInfo: init.agentInfo ?? null,
      capabilities: capabilities ?? null,
      authMethods: authMethodsOf(init.authMethods),
      canLoad: capabilities?.loadSession === true,
      canResume: capabilities?.sessionCapabilities?.resume != null,
      mcp: {
        http: capabilities?.mcpCapabilities?.http === true,
        sse: capabilities?.mcpCapabilities?.sse === true,
      },
    };
    return undefined;
  }

  async authenticate(methodId: string): Promise<void> {
    await this.#live().connection.agent.request("authenticate", { methodId });
  }

  async startSession(
    resume: string | undefined,
    userServers: readonly UserMcpServer[],
  ): Promise<SessionStarted> {
    const { connection, context } = this.#live();
    const mcpServers: McpServer[] =
      context.mcpTools && this.#init
        ? await context.mcpTools.mcpServers(connection, this.#init)
        : [];
    mcpServers.push(...userServers.map(v1Server));
    const { cwd } = this.options;
    if (resume === undefined) {
      const session = await connection.agent.request("session/new", { cwd, mcpServers });
      this.#sessionId = session.sessionId;
      return { sessionId: session.sessionId, how: "new" };
    }
    if (this.#intro?.canResume === true) {
      await connection.agent.request("session/resume", { sessionId: resume, cwd, mcpServers });
      this.#sessionId = resume;
      return { sessionId: resume, how: "resume" };
    }
    if (this.#intro?.canLoad === true) {
      // The agent replays the conversation as updates before it answers: they are shown.
      this.#sessionId = resume;
      await connection.agent.request("session/load", { sessionId: resume, cwd, mcpServers });
      return { sessionId: resume, how: "load" };
    }
    throw new Error(
      "--session: the agent offers neither session/resume nor session/load (agentCapabilities)",
    );
  }

  async prompt(text: string): Promise<TurnEnd> {
    const { connection } = this.#live();
    this.#turnTerminals.clear();
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

  /**
   * Ctrl-C: the turn is cancelled, and the CLI's terminals this turn started are killed and
   * released (those of earlier turns, background work, live on until the session ends).
   */
  interrupt(cancelTurn: () => void): void {
    cancelTurn();
    const host = this.#host;
    for (const info of host?.list() ?? []) {
      if (info.state !== "released" && this.#turnTerminals.has(info.terminalId)) {
        host?.release(info.owner, info.terminalId).catch((error: unknown) => {
          this.#context?.view.notice(
            `Could not release terminal ${info.terminalId}: ${String(error)}`,
          );
        });
      }
    }
  }

  terminalRecords(): TerminalRecord[] {
    return [...this.#terminals(), ...(this.#meta?.terminalRecords() ?? [])];
  }

  runningTerminals(): number {
    const hosted = (this.#host?.list() ?? []).filter((info) => info.state === "running").length;
    return hosted + (this.#meta?.runningIds().length ?? 0);
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

/** A user's MCP server in v1's shape (a stdio server has no `type`). */
function v1Server(server: UserMcpServer): McpServer {
  if (server.type === "stdio") {
    const { name, command, args, env } = server;
    return { name, command, args, env };
  }
  return server;
}
