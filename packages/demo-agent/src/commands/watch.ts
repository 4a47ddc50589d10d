import type { DemoSession } from "../session.js";

/**
 * `watch <id> <regex>`: reports every output line of a running run that matches. acp-process
 * reassembles lines across chunks; the BackgroundReporter turns each hit into message text.
 */
export async function watchCommand(
  session: DemoSession,
  id: string,
  regex: string,
): Promise<string> {
  return session.tool(`watch ${id} /${regex}/`, { id, regex }, async (call) => {
    const watcherId = session.manager.watch(id, { regex, event: regex }, { sessionId: session.id });
    await call.finish(
      "completed",
      `Watching ${id} for /${regex}/ (watcher ${watcherId}); each matching line is reported as it appears.`,
      { id, regex, watcherId },
    );
    return watcherId;
  });
}
