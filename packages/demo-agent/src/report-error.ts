import { messageOf } from "acp-terminal/internal";

/**
 * For failures nobody is waiting for (a kill on cancel, a notification to a client that may have
 * gone): one line on the agent's stderr saying what failed and why, so it is never silent. The
 * caller then carries on: the run settles or the session ends either way.
 */
export function reportError(what: string, error: unknown): void {
  process.stderr.write(`demo-agent: ${what} failed: ${messageOf(error)}\n`);
}
