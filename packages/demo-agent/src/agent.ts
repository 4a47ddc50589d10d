import { randomUUID } from "node:crypto";
import path from "node:path";
// The unstable v1 surface: it accepts `{type: "acp"}` MCP servers in session/new and carries mcp/message.
import {
  agent,
  isMcpServerAcp,
  McpOverAcpCaller,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type ContentBlock,
} from "@agentclientprotocol/sdk/unstable";
import { SqliteRunStore } from "acp-process/sqlite";
import { TerminalHost } from "acp-terminal";
import { demoAgentV2 } from "./agent-v2.js";
import { dispatch } from "./dispatch.js";
import { sessionsManager } from "./manager.js";
import { findMcpTerminals } from "./mcp-terminals.js";
import { chooseMode } from "./mode.js";
import { parseCommand } from "./parse.js";
import { reportError } from "./report-error.js";
import { DemoSession } from "./session.js";

export interface DemoAgent {
  /** ACP v1 (the client's terminals, or local runs). */
  app: AgentApp;
  /** The ACP v2 draft (runs published as agent-owned terminals); route with `agentProtocolRouter`. */
  v2App: ReturnType<typeof demoAgentV2>;
  /** Kills and releases every run of every session, and the local host if one was started. */
  dispose(): Promise<void>;
}

function promptText(blocks: ContentBlock[]): string {
  return blocks.map((block) => (block.type === "text" ? block.text : "")).join(" ");
}

export interface DemoAgentOptions {
  /**
   * Keep runs and their output in this SQLite file (acp-process's SqliteRunStore) instead of in
   * memory. Runs a previous agent left running are marked `lost` at start-up (`recover()`).
   */
  storePath?: string;
}

/** The demo agent: one app per client connection (stdio). */
export function demoAgent(options: DemoAgentOptions = {}): DemoAgent {
  const sessions = new Map<string, DemoSession>();
  const store = options.storePath === undefined ? undefined : new SqliteRunStore(options.storePath);
  const manager = sessionsManager(sessions, store);
  // Runs a previous agent left running in the store become `lost` (with a notice), before any new run.
  const recovered =
    store === undefined
      ? Promise.resolve()
      : manager.recover().then(
          () => undefined,
          (error: unknown) => reportError("recovering the run store", error),
        );
  let clientCapabilities: unknown;
  let localHost: TerminalHost | undefined;
  const local = (): TerminalHost => (localHost ??= new TerminalHost());
  const mcp = new McpOverAcpCaller({ clientInfo: { name: "demo-agent", version: "0.1.0" } });

  const app = agent({ name: "demo-agent" })
    .onRequest("initialize", ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      // mcpCapabilities.acp: a client may offer its terminals as an MCP server over this connection.
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: { loadSession: false, mcpCapabilities: { acp: true } },
        agentInfo: { name: "demo-agent", version: "0.1.0" },
      };
    })
    .onNotification(methods.agent.mcp.message, mcp.handleNotification)
    .onRequest("session/new", async ({ params, client }) => {
      if (!path.isAbsolute(params.cwd)) {
        throw RequestError.invalidParams(
          { cwd: params.cwd },
          `cwd must be an absolute path, received ${JSON.stringify(params.cwd)}`,
        );
      }
      const sessionId = randomUUID();
      const mcpTerminals = await findMcpTerminals(
        mcp,
        client,
        clientCapabilities,
        params.mcpServers.filter(isMcpServerAcp),
      );
      sessions.set(
        sessionId,
        new DemoSession(
          sessionId,
          params.cwd,
          client,
          chooseMode(clientCapabilities, client, sessionId, local, mcpTerminals),
          manager,
        ),
      );
      return { sessionId };
    })
    .onNotification("session/cancel", ({ params }) => sessions.get(params.sessionId)?.turn.abort())
    .onRequest("session/prompt", async ({ params }) => {
      await recovered; // no new run before the store's leftovers are settled
      const session = sessions.get(params.sessionId);
      if (session === undefined) {
        throw RequestError.resourceNotFound(params.sessionId.slice(0, 100)); // cut: a huge unknown id gets a small answer
      }
      session.turn = new AbortController();
      if (!session.introduced) {
        session.introduced = true;
        const stored =
          options.storePath === undefined
            ? ""
            : ` Runs and their output are kept in ${options.storePath} (acp-process's SqliteRunStore).`;
        await session.say(`demo-agent: ${session.mode.description}${stored}\n`, {
          event: "mode",
          provider: session.mode.provider.kind,
          ...(options.storePath === undefined ? {} : { store: options.storePath }),
        });
      }
      await dispatch(session, parseCommand(promptText(params.prompt)));
      return { stopReason: session.turn.signal.aborted ? "cancelled" : "end_turn" };
    });

  const v2App = demoAgentV2({
    sessions,
    manager,
    local,
    recovered,
    storeNote:
      options.storePath === undefined
        ? ""
        : ` Runs and their output are kept in ${options.storePath} (acp-process's SqliteRunStore).`,
    ...(options.storePath === undefined ? {} : { storePath: options.storePath }),
  });

  return {
    app,
    v2App,
    async dispose() {
      await Promise.all([...sessions.values()].map((session) => session.dispose()));
      await manager.dispose();
      store?.close();
      await localHost?.dispose();
    },
  };
}
