import { setTimeout as delay } from "node:timers/promises";
import { TerminalError } from "../core/errors.js";
import type { RemoteConnection } from "./remote-connection.js";
import type { LocalClient } from "./session-client.js";

/** How long a started session may take to report `started` (ssh may still be opening a channel). */
const START_TIMEOUT_MS = 30_000;

/** How long to wait for the agent's answer before saying a session ended without a report. */
const SYNC_TIMEOUT_MS = 5000;

/**
 * Rejects once the terminal's session ended, saying what its client said: raced against the
 * `started` report, it wins only when the session ended before the command started. A report of
 * why it ended (`failed`) may still be on its way: the agent is asked for a pong first.
 */
export async function sessionEndedFirst(
  client: LocalClient,
  connection: RemoteConnection,
  target: string,
): Promise<never> {
  const ended = client.ended.then(async () => {
    await connection.sync(SYNC_TIMEOUT_MS);
    const said = client.said().trim();
    throw new TerminalError(
      "spawn_failed",
      `The session on ${target} ended before the command started${said ? `: ${said}` : ""}`,
      { target },
    );
  });
  ended.catch(() => {}); // a race may have been decided without it
  return ended;
}

/** Rejects after START_TIMEOUT_MS unless `signal` aborts first (then it never settles). */
export async function startTimeout(target: string, signal: AbortSignal): Promise<never> {
  const elapsed = await delay(START_TIMEOUT_MS, true, { ref: false, signal }).catch(() => false);
  if (!elapsed) {
    return new Promise<never>(() => {});
  }
  throw new TerminalError(
    "spawn_failed",
    `The command did not start on ${target} within ${START_TIMEOUT_MS} ms (the session opened but the remote helper did not answer)`,
    { target },
  );
}
