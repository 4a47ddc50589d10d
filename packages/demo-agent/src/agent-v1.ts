import { randomUUID } from "node:crypto";
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
import type { SharedAgentState } from "./agent-v2.js";
import { dispatch } from "./dispatch.js";
import { findMcpTerminals } from "./mcp-terminals.js";
import { chooseMode } from "./mode.js";
import { parseCommand } from "./parse.js";
import { checkSessionCwd, DemoSession } from "./session.js";

function promptText(blocks: ContentBlock[]): string {
  return blocks.map((block) => (block.type === "text" ? block.text : "")).join(" ");
}

/**
 * The demo agent on ACP v1: each session's commands run in the client's terminals when it offers
 * them, else over its MCP terminal server, else locally. A prompt is one turn, answered with its
 * stop reason.
 */
export function demoAgentV1(shared: SharedAgentState): AgentApp {
  const { sessions, manager } = shared;
  let clientCapabilities: unknown;
  const mcp = new McpOverAcpCaller({ clientInfo: { name: "demo-agent", version: "0.1.0" } });

  return agent({ name: "demo-agent" })
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
      checkSessionCwd(params.cwd);
      const sessionId = randomUUID();
      const mcpTerminals = await findMcpTerminals(
        mcp,
        client,
        clientCapabilities,
        params.mcpServers.filter(isMcpServerAcp),
      );
      const mode = chooseMode(clientCapabilities, client, sessionId, shared.local, mcpTerminals);
      sessions.set(sessionId, new DemoSession(sessionId, params.cwd, client, mode, manager));
      return { sessionId };
    })
    .onNotification("session/cancel", ({ params }) => sessions.get(params.sessionId)?.turn.abort())
    .onRequest("session/prompt", async ({ params }) => {
      await shared.recovered; // no new run before the store's leftovers are settled
      const session = sessions.get(params.sessionId);
      if (session === undefined) {
        throw RequestError.resourceNotFound(params.sessionId.slice(0, 100)); // cut: a huge unknown id gets a small answer
      }
      session.turn = new AbortController();
      if (!session.introduced) {
        session.introduced = true;
        await session.say(`demo-agent: ${session.mode.description}${shared.storeNote}\n`, {
          event: "mode",
          provider: session.mode.provider.kind,
          ...(shared.storePath === undefined ? {} : { store: shared.storePath }),
        });
      }
      await dispatch(session, parseCommand(promptText(params.prompt)));
      return { stopReason: session.turn.signal.aborted ? "cancelled" : "end_turn" };
    });
}
