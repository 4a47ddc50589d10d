import { randomUUID } from "node:crypto";
// The unstable v2 surface: it accepts `{type: "acp"}` MCP servers in session/new and carries mcp/message.
import {
  agent,
  isMcpServerAcp,
  McpOverAcpCaller,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentConnection,
  type AgentContext,
  type ContentBlock,
  type NewSessionRequest,
  type PromptRequest,
  type ResumeSessionRequest,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { ProcessManager } from "acp-process";
import { TerminalPublisher } from "acp-process/v2";
import type { TerminalHost } from "acp-terminal";
import { dispatch } from "./dispatch.js";
import { ForegroundTurns } from "./foreground.js";
import { findMcpTerminals } from "./mcp-terminals.js";
import { chooseV2Mode } from "./mode.js";
import { parseCommand } from "./parse.js";
import { reportError } from "./report-error.js";
import { checkSessionCwd, DemoSession } from "./session.js";

/** What the v1 and v2 apps of one agent share: its sessions, its one manager, its local host. */
export interface SharedAgentState {
  sessions: Map<string, DemoSession>;
  manager: ProcessManager;
  local: () => TerminalHost;
  /** Settles once the run store's leftovers are recovered: no new run before. */
  recovered: Promise<void>;
  /** Says where runs are kept, for the first message of a session ("" in memory). */
  storeNote: string;
  storePath?: string;
}

function promptText(blocks: ContentBlock[]): string {
  return blocks.map((block) => (block.type === "text" ? block.text : "")).join(" ");
}

/**
 * The demo agent on the ACP v2 draft. There are no client terminals: each session's commands run
 * locally (or over the client's MCP terminal server) and every run is published as an
 * agent-owned terminal (acp-process's TerminalPublisher) that its tool call references.
 * Prompts follow v2's lifecycle: the answer is the inserted message's id; `state_update`
 * running/idle (with the background runs' terminals) frames the work.
 */
export function demoAgentV2(shared: SharedAgentState): AgentApp {
  const demo = new DemoAgentV2(shared);
  return agent({ name: "demo-agent" })
    .onConnect((connection) => demo.connect(connection))
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      info: { name: "demo-agent", version: "0.1.0" },
      // session: {} = new, list, resume, close, prompt, cancel; mcp.acp: a client may offer its
      // terminals as an MCP server over this connection.
      capabilities: { session: { mcp: { acp: {} } } },
    }))
    .onNotification(methods.agent.mcp.message, demo.mcp.handleNotification)
    .onRequest("session/new", ({ params, client }) => demo.newSession(params, client))
    .onRequest("session/list", () => demo.listSessions())
    .onRequest("session/resume", ({ params }) => demo.resume(params))
    .onRequest("session/close", ({ params }) => demo.close(params.sessionId))
    .onNotification("session/cancel", ({ params }) => demo.cancel(params.sessionId))
    .onRequest("terminal/cancel", ({ params }) =>
      demo.cancelTerminal(params.sessionId, params.terminalId),
    )
    .onRequest("session/prompt", ({ params }) => demo.prompt(params));
}

/** The v2 app's sessions, each with its foreground turns, over the one connection it serves. */
class DemoAgentV2 {
  readonly mcp = new McpOverAcpCaller({ clientInfo: { name: "demo-agent", version: "0.1.0" } });
  private readonly foreground = new Map<string, ForegroundTurns>();
  /** Set when the client connects: the demo serves one client (stdio), so one connection per app. */
  private publisher: TerminalPublisher | undefined;

  constructor(private readonly shared: SharedAgentState) {}

  connect(connection: AgentConnection): void {
    const { manager, sessions } = this.shared;
    const publisher: TerminalPublisher = new TerminalPublisher(manager, {
      send: (sessionId, update) =>
        connection.client.notify("session/update", { sessionId, update }),
      // Only this connection's (v2) sessions: a v1 session's runs are the client's terminals.
      publishes: (run) => sessions.get(run.sessionId)?.publisher === publisher,
      onError: reportError,
    });
    this.publisher = publisher;
    // A background run that starts or ends changes the background list: a new snapshot. Added
    // after the publisher's own listener, so the announcement or exitStatus goes out first.
    const unsubscribe = manager.subscribe((event) => {
      const changed =
        event.type === "exit" || (event.type === "status" && event.run.status === "running");
      if (!changed || event.run.labels["background"] !== "true") {
        return;
      }
      const session = sessions.get(event.run.sessionId);
      if (session !== undefined && session.publisher === publisher) {
        void this.sendState(session).catch((error: unknown) =>
          reportError(`reporting the background work of ${session.id}`, error),
        );
      }
    });
    void connection.closed.then(() => {
      unsubscribe();
      publisher.dispose();
    });
  }

  async newSession(
    params: NewSessionRequest,
    client: AgentContext,
  ): Promise<{ sessionId: string }> {
    checkSessionCwd(params.cwd);
    const sessionId = randomUUID();
    const mcpTerminals = await findMcpTerminals(
      this.mcp,
      client,
      undefined,
      (params.mcpServers ?? []).filter(isMcpServerAcp),
    );
    const mode = chooseV2Mode(sessionId, this.shared.local, mcpTerminals);
    this.shared.sessions.set(
      sessionId,
      new DemoSession(sessionId, params.cwd, client, mode, this.shared.manager, this.publisher!),
    );
    this.foreground.set(sessionId, new ForegroundTurns());
    return { sessionId };
  }

  listSessions(): { sessions: { sessionId: string; cwd: string }[] } {
    return {
      sessions: [...this.shared.sessions.values()]
        .filter((session) => session.publisher === this.publisher)
        .map((session) => ({ sessionId: session.id, cwd: session.cwd })),
    };
  }

  async resume(params: ResumeSessionRequest): Promise<Record<string, never>> {
    const session = this.session(params.sessionId);
    const replayFrom = params.replayFrom ?? null;
    if (replayFrom !== null && replayFrom.type !== "start") {
      throw RequestError.invalidParams(
        { replayFrom },
        `replayFrom ${JSON.stringify(replayFrom.type)} is not supported: use {"type": "start"} or omit it`,
      );
    }
    // Replay: every terminal of the session, whole (its bounded output snapshot included).
    if (replayFrom !== null) {
      await session.publisher!.replay(session.id);
    }
    // After any replay and before the response: the current state.
    await this.sendState(session);
    return {};
  }

  /** Stops the foreground turn (its idle update goes out first), the held prompts and the background runs. */
  async close(sessionId: string): Promise<Record<string, never>> {
    const session = this.shared.sessions.get(sessionId);
    if (session === undefined || session.publisher === undefined) {
      return {};
    }
    const turns = this.foreground.get(session.id);
    turns?.close();
    session.turn.abort();
    await session.dispose();
    await turns?.drained();
    await session.publisher.settled();
    this.shared.sessions.delete(session.id);
    this.foreground.delete(session.id);
    return {};
  }

  cancel(sessionId: string): void {
    this.foreground.get(sessionId)?.cancel();
    this.shared.sessions.get(sessionId)?.turn.abort();
  }

  cancelTerminal(sessionId: string, terminalId: string): Promise<void> {
    this.session(sessionId);
    return this.publisher!.cancel(sessionId, terminalId);
  }

  /** Answers with the prompt's message id once the prompt is inserted (held behind a running turn until then). */
  async prompt(params: PromptRequest): Promise<{ messageId: string }> {
    const session = this.session(params.sessionId);
    const messageId = randomUUID();
    await this.foreground
      .get(session.id)!
      .hold((insert) => this.turn(session, messageId, params.prompt, insert));
    return { messageId };
  }

  /** One turn: the user message, `running`, the command, then `idle` with how the turn ended. */
  private async turn(
    session: DemoSession,
    messageId: string,
    prompt: ContentBlock[],
    insert: () => void,
  ): Promise<void> {
    const { shared } = this;
    const turns = this.foreground.get(session.id)!;
    await shared.recovered;
    session.turn = new AbortController();
    session.messageId = randomUUID();
    try {
      await session.notify({ sessionUpdate: "user_message", messageId, content: prompt });
      turns.running = true;
      await this.sendState(session);
      insert();
      if (!session.introduced) {
        session.introduced = true;
        await session.say(`demo-agent: ${session.mode.description}${shared.storeNote}\n`, {
          event: "mode",
          provider: session.mode.provider.kind,
          protocolVersion: 2,
          ...(shared.storePath === undefined ? {} : { store: shared.storePath }),
        });
      }
      await dispatch(session, parseCommand(promptText(prompt)));
    } catch (error) {
      reportError(`the turn of ${session.id}`, error);
    } finally {
      insert();
      turns.running = false;
      session.messageId = null;
      await this.sendState(session, session.turn.signal.aborted ? "cancelled" : "end_turn").catch(
        (error: unknown) => reportError(`ending the turn of ${session.id}`, error),
      );
    }
  }

  /** A session of this app (v2), or -32002. */
  private session(sessionId: string): DemoSession {
    const session = this.shared.sessions.get(sessionId);
    if (session === undefined || session.publisher === undefined) {
      // Cut: the answer to a huge unknown id stays small.
      throw RequestError.sessionNotFound(sessionId.slice(0, 100));
    }
    return session;
  }

  /** A `state_update` snapshot: foreground state, and the background runs' terminals (every time). */
  private sendState(session: DemoSession, stopReason?: "end_turn" | "cancelled"): Promise<void> {
    return session.notify({
      sessionUpdate: "state_update",
      state: this.foreground.get(session.id)?.running ? "running" : "idle",
      background: session.publisher!.background(session.id),
      ...(stopReason !== undefined ? { stopReason } : {}),
    });
  }
}
