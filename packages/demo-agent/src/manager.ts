import { ProcessManager, type RunStore } from "acp-process";
import type { DemoSession } from "./session.js";

/**
 * The agent's one ProcessManager, over every session: each run goes to its session's provider
 * (the client's terminals or local processes), and each event to its session's reporter. One
 * manager, so that one run store — a SQLite file, which has one owner — holds every session's runs.
 */
export function sessionsManager(
  sessions: ReadonlyMap<string, DemoSession>,
  store?: RunStore,
): ProcessManager {
  return new ProcessManager({
    providerFor: (sessionId) => sessions.get(sessionId)!.mode.provider, // runs start only in a known session
    ...(store !== undefined ? { store } : {}),
    onEvent: (event) => {
      const sessionId = "run" in event ? event.run.sessionId : event.sessionId;
      // A run recovered from the store belongs to a session of an earlier agent: nobody to tell.
      sessions.get(sessionId)?.background.onEvent(event);
    },
  });
}
