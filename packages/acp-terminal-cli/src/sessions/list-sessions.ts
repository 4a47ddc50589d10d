import { client, PROTOCOL_VERSION, type SessionInfo, type Stream } from "@agentclientprotocol/sdk";
import { initializeFailure, protocolFailure, type Ending } from "../agent/failure-messages.js";
import { methodNotFound } from "../drivers/method-not-found.js";
import { ExitCode } from "../exit-codes.js";

/** Pages of `session/list` read at most, and sessions kept at most. */
export const MAX_LIST_PAGES = 20;
export const MAX_LISTED_SESSIONS = 2000;

export interface Listed {
  /** The agent's `agentInfo`, for the header line. */
  agentInfo: unknown;
  sessions: SessionInfo[];
  /** More pages were offered than were read. */
  cut: boolean;
}

/**
 * Asks the agent for its sessions over ACP v1: `initialize` (no terminals, no files: nothing is
 * run), then `session/list` page by page (in `cwd`, or everywhere), bounded by MAX_LIST_PAGES and
 * MAX_LISTED_SESSIONS. An agent that does not offer `sessionCapabilities.list` ends it with a line
 * saying so (exit 4), as does any error answer.
 */
export async function listSessions(
  stream: Stream,
  options: { agent: string; version: string; cwd: string | undefined },
): Promise<Listed | Ending> {
  const connection = client({ name: "acp-terminal" })
    .onRequest("*", methodNotFound)
    .connect(stream);
  try {
    let init;
    try {
      init = await connection.agent.request("initialize", {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "acp-terminal", version: options.version },
      });
    } catch (error) {
      return initializeFailure(options.agent, error);
    }
    if (init.agentCapabilities?.sessionCapabilities?.list == null) {
      return {
        exitCode: ExitCode.agentFailed,
        error: `The agent does not list its sessions (no sessionCapabilities.list in its initialize answer): run acp-terminal run --session ID with an id it gave you`,
      };
    }
    const sessions: SessionInfo[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      let page;
      try {
        page = await connection.agent.request("session/list", {
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          ...(cursor === undefined ? {} : { cursor }),
        });
      } catch (error) {
        return protocolFailure("session/list", error);
      }
      pages += 1;
      sessions.push(...page.sessions.slice(0, MAX_LISTED_SESSIONS - sessions.length));
      cursor = page.nextCursor ?? undefined;
      if (cursor === undefined) {
        return { agentInfo: init.agentInfo ?? null, sessions, cut: false };
      }
      if (pages >= MAX_LIST_PAGES || sessions.length >= MAX_LISTED_SESSIONS) {
        return { agentInfo: init.agentInfo ?? null, sessions, cut: true };
      }
    }
  } finally {
    connection.close();
  }
}
