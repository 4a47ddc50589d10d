import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import type { TerminalProvider } from "acp-process";
import { sessionsManager } from "../src/manager.js";
import { DemoSession } from "../src/session.js";

export interface TestSession {
  session: DemoSession;
  /** Kills the session's runs and disposes of the manager. */
  dispose(): Promise<void>;
}

/** A session "s1" in the working directory, with its own agent-wide manager, as the agent builds one. */
export function testSession(
  provider: TerminalProvider,
  client: AgentContext,
  clientTerminals = false,
): TestSession {
  const sessions = new Map<string, DemoSession>();
  const manager = sessionsManager(sessions);
  const session = new DemoSession(
    "s1",
    process.cwd(),
    client,
    { provider, clientTerminals, description: "test" },
    manager,
  );
  sessions.set(session.id, session);
  return {
    session,
    async dispose() {
      await session.dispose();
      await manager.dispose();
    },
  };
}
