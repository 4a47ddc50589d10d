import { randomUUID } from "node:crypto";
import path from "node:path";
// The unstable v2 surface: it accepts `{type: "acp"}` MCP servers in session/new and carries mcp/message.
import {
  agent,
  isMcpServerAcp,
  McpOverAcpCaller,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type ContentBlock,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { ProcessManager } from "acp-process";
import { TerminalPublisher } from "acp-process/v2";
import type { TerminalHost } from "acp-terminal";
import { dispatch } from "./dispatch.js";
import { findMcpTerminals } from "./mcp-terminals.js";
import { chooseV2Mode } from "./mode.js";
import { parseCommand } from "./parse.js";
import { reportError } from "./report-error.js";
import { DemoSession } from "./session.js";

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

/** A v2 session's foreground state: whether a turn runs, and the turns held behind it. */
interface Foreground {
  running: boolean;
  queue: Promise<void>;
  /** Bumped by `session/cancel`: prompts held from before it are answered -32800, not run. */
  generation: number;
  /** Set by `session/close`: nothing held runs any more. */
  closed: boolean;
  /** Prompts waiting behind the running turn (at most MAX_HELD_PROMPTS). */
  held: number;
}

/** Prompts held behind a running turn per session: each keeps its content until it runs. */
const MAX_HELD_PROMPTS = 16;

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
  const { sessions, manager } = shared;
  const foreground = new Map<string, Foreground>();
  const mcp = new McpOverAcpCaller({ clientInfo: { name: "demo-agent", version: "0.1.0" } });
  /** Set when the client connects: the demo serves one client (stdio), so one connection per app. */
  let publisher: TerminalPublisher | undefined;

  const v2Session = (sessionId: string): DemoSession => {
    const session = sessions.get(sessionId);
    if (session === undefined || session.publisher === undefined) {
      // Cut: the answer to a huge unknown id stays small.
      throw RequestError.sessionNotFound(sessionId.slice(0, 100));
    }
    return session;
  };
  /** A `state_update` snapshot: foreground state, and the background runs' terminals (every time). */
  const sendState = (session: DemoSession, stopReason?: "end_turn" | "cancelled"): Promise<void> =>
    session.notify({
      sessionUpdate: "state_update",
      state: foreground.get(session.id)?.running ? "running" : "idle",
      background: session.publisher!.background(session.id),
      ...(stopReason !== undefined ? { stopReason } : {}),
    });

  return agent({ name: "demo-agent" })
    .onConnect((connection) => {
      publisher = new TerminalPublisher(manager, {
        send: (sessionId, update) =>
          connection.client.notify("session/update", { sessionId, update }),
        // Only this connection's (v2) sessions: a v1 session's runs are the client's terminals.
        publishes: (run) => sessions.get(run.sessionId)?.publisher === publisher,
        onError: reportError,
      });
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
          void sendState(session).catch((error: unknown) =>
            reportError(`reporting the background work of ${session.id}`, error),
          );
        }
      });
      void connection.closed.then(() => {
        unsubscribe();
        publisher?.dispose();
      });
    })
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      info: { name: "demo-agent", version: "0.1.0" },
      // session: {} = new, list, resume, close, prompt, cancel; mcp.acp: a client may offer its
      // terminals as an MCP server over this connection.
      capabilities: { session: { mcp: { acp: {} } } },
    }))
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
        undefined,
        (params.mcpServers ?? []).filter(isMcpServerAcp),
      );
      const mode = chooseV2Mode(sessionId, shared.local, mcpTerminals);
      sessions.set(
        sessionId,
        new DemoSession(sessionId, params.cwd, client, mode, manager, publisher!),
      );
      foreground.set(sessionId, {
        running: false,
        queue: Promise.resolve(),
        generation: 0,
        closed: false,
        held: 0,
      });
      return { sessionId };
    })
    .onRequest("session/list", () => ({
      sessions: [...sessions.values()]
        .filter((session) => session.publisher === publisher)
        .map((session) => ({ sessionId: session.id, cwd: session.cwd })),
    }))
    .onRequest("session/resume", async ({ params }) => {
      const session = v2Session(params.sessionId);
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
      await sendState(session);
      return {};
    })
    .onRequest("session/close", async ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (session === undefined || session.publisher === undefined) {
        return {};
      }
      // Stops the foreground turn (its idle update goes out first), the held prompts and the
      // background runs.
      const state = foreground.get(session.id);
      if (state !== undefined) {
        state.closed = true;
      }
      session.turn.abort();
      await session.dispose();
      await foreground.get(session.id)?.queue;
      await session.publisher.settled();
      sessions.delete(session.id);
      foreground.delete(session.id);
      return {};
    })
    .onNotification("session/cancel", ({ params }) => {
      const state = foreground.get(params.sessionId);
      if (state !== undefined) {
        state.generation++;
      }
      sessions.get(params.sessionId)?.turn.abort();
    })
    .onRequest("terminal/cancel", ({ params }) => {
      v2Session(params.sessionId);
      return publisher!.cancel(params.sessionId, params.terminalId);
    })
    .onRequest("session/prompt", async ({ params }) => {
      const session = v2Session(params.sessionId);
      const state = foreground.get(session.id)!;
      if (state.held >= MAX_HELD_PROMPTS) {
        throw RequestError.invalidRequest(
          undefined,
          `${MAX_HELD_PROMPTS} prompts are already held behind the running turn; send this one after one of them is inserted (its messageId answered)`,
        );
      }
      state.held++;
      const messageId = randomUUID();
      const generation = state.generation;
      let insert!: () => void;
      let refuse!: (error: unknown) => void;
      const inserted = new Promise<void>((resolve, reject) => {
        insert = resolve;
        refuse = reject;
      });
      // One turn at a time: a prompt sent while one runs is held, then inserted in order.
      state.queue = state.queue.then(async () => {
        state.held--;
        if (state.closed || state.generation !== generation) {
          // Cancelled or closed before its message was inserted.
          refuse(
            RequestError.requestCancelled(undefined, "the prompt was held and then cancelled"),
          );
          return;
        }
        await shared.recovered;
        session.turn = new AbortController();
        session.messageId = randomUUID();
        try {
          await session.notify({
            sessionUpdate: "user_message",
            messageId,
            content: params.prompt,
          });
          state.running = true;
          await sendState(session);
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
          await dispatch(session, parseCommand(promptText(params.prompt)));
        } catch (error) {
          reportError(`the turn of ${session.id}`, error);
        } finally {
          insert();
          state.running = false;
          session.messageId = null;
          await sendState(session, session.turn.signal.aborted ? "cancelled" : "end_turn").catch(
            (error: unknown) => reportError(`ending the turn of ${session.id}`, error),
          );
        }
      });
      await inserted;
      return { messageId };
    });
}
