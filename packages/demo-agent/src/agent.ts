import { randomUUID } from "node:crypto";
import path from "node:path";
import { agent, PROTOCOL_VERSION, RequestError, type AgentApp, type ContentBlock } from "@agentclientprotocol/sdk";
import { TerminalHost } from "acp-terminal";
import { dispatch } from "./commands/index.js";
import { chooseMode } from "./mode.js";
import { parseCommand } from "./parse.js";
import { DemoSession } from "./session.js";

export interface DemoAgent {
  app: AgentApp;
  /** Kills and releases every run of every session, and the local host if one was started. */
  dispose(): Promise<void>;
}

function promptText(blocks: ContentBlock[]): string {
  return blocks.map((block) => (block.type === "text" ? block.text : "")).join(" ");
}

/** The demo agent: one app per client connection (stdio). */
export function demoAgent(): DemoAgent {
  const sessions = new Map<string, DemoSession>();
  let clientCapabilities: unknown;
  let localHost: TerminalHost | undefined;
  const local = (): TerminalHost => (localHost ??= new TerminalHost());

  const app = agent({ name: "demo-agent" })
    .onRequest("initialize", ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return { protocolVersion: PROTOCOL_VERSION, agentCapabilities: { loadSession: false }, agentInfo: { name: "demo-agent", version: "0.1.0" } };
    })
    .onRequest("session/new", ({ params, client }) => {
      if (!path.isAbsolute(params.cwd)) throw RequestError.invalidParams({ cwd: params.cwd }, `cwd must be an absolute path, received ${JSON.stringify(params.cwd)}`);
      const sessionId = randomUUID();
      sessions.set(sessionId, new DemoSession(sessionId, params.cwd, client, chooseMode(clientCapabilities, client, sessionId, local)));
      return { sessionId };
    })
    .onNotification("session/cancel", ({ params }) => sessions.get(params.sessionId)?.turn.abort())
    .onRequest("session/prompt", async ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (session === undefined) throw RequestError.resourceNotFound(params.sessionId);
      session.turn = new AbortController();
      if (!session.introduced) {
        session.introduced = true;
        await session.say(`demo-agent: ${session.mode.description}\n`, { event: "mode", provider: session.mode.provider.kind });
      }
      await dispatch(session, parseCommand(promptText(params.prompt)));
      return { stopReason: session.turn.signal.aborted ? "cancelled" : "end_turn" };
    });

  return {
    app,
    async dispose() {
      await Promise.all([...sessions.values()].map((session) => session.dispose()));
      await localHost?.dispose();
    },
  };
}
