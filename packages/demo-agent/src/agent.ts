import type { AgentApp } from "@agentclientprotocol/sdk/unstable";
import { SqliteRunStore } from "acp-process/sqlite";
import { TerminalHost } from "acp-terminal";
import { demoAgentV1 } from "./agent-v1.js";
import { demoAgentV2, type SharedAgentState } from "./agent-v2.js";
import { sessionsManager } from "./manager.js";
import { reportError } from "./report-error.js";
import type { DemoSession } from "./session.js";

export interface DemoAgent {
  /** ACP v1 (the client's terminals, or local runs). */
  app: AgentApp;
  /** The ACP v2 draft (runs published as agent-owned terminals); route with `agentProtocolRouter`. */
  v2App: ReturnType<typeof demoAgentV2>;
  /** Kills and releases every run of every session, and the local host if one was started. */
  dispose(): Promise<void>;
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
  let localHost: TerminalHost | undefined;
  const shared: SharedAgentState = {
    sessions,
    manager,
    local: () => (localHost ??= new TerminalHost()),
    recovered,
    storeNote:
      options.storePath === undefined
        ? ""
        : ` Runs and their output are kept in ${options.storePath} (acp-process's SqliteRunStore).`,
    ...(options.storePath === undefined ? {} : { storePath: options.storePath }),
  };
  return {
    app: demoAgentV1(shared),
    v2App: demoAgentV2(shared),
    async dispose() {
      await Promise.all([...sessions.values()].map((session) => session.dispose()));
      await manager.dispose();
      store?.close();
      await localHost?.dispose();
    },
  };
}
