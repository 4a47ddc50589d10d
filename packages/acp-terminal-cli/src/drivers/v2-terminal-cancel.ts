import { setTimeout as delay } from "node:timers/promises";
import type { ActiveSession } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { cutText, messageOf } from "acp-terminal/internal";

/** After Ctrl-C, how long the `terminal/cancel` answers may take before the turn is cancelled anyway. */
export const TERMINAL_CANCEL_WAIT_MS = 1_000;
/** Characters of an agent's refusal quoted in a notice. */
const MAX_QUOTED_CHARS = 500;

/**
 * Ctrl-C under v2: `terminal/cancel` to each of `running` that the session says can be cancelled
 * (`capabilities.cancel`), all at once; resolves when every one is answered or after
 * TERMINAL_CANCEL_WAIT_MS, whichever is first. A refusal answered within the wait, and a cancel
 * unanswered at its end, are each said in a notice; an answer after the wait says nothing new.
 */
export async function cancelTerminals(
  session: ActiveSession,
  running: readonly string[],
  notice: (text: string) => void,
): Promise<void> {
  let waited = false;
  const unanswered = new Set<string>();
  const cancels = running
    .filter((terminalId) => session.canCancelTerminal(terminalId))
    .map((terminalId) => {
      unanswered.add(terminalId);
      return session.cancelTerminal(terminalId).then(
        () => unanswered.delete(terminalId),
        (error: unknown) => {
          unanswered.delete(terminalId);
          // An answer after the wait, or the connection closing on the request, says nothing new.
          if (waited) {
            return;
          }
          // Say, a terminal that exited as the request went out (-32602 "already exited").
          const why = cutText(messageOf(error), MAX_QUOTED_CHARS);
          notice(`acp-terminal: terminal/cancel for ${terminalId} refused: ${why}`);
        },
      );
    });
  if (cancels.length === 0) {
    return;
  }
  await Promise.race([Promise.allSettled(cancels), delay(TERMINAL_CANCEL_WAIT_MS)]);
  waited = true;
  for (const terminalId of unanswered) {
    notice(
      `acp-terminal: terminal/cancel for ${terminalId}: no answer within ${TERMINAL_CANCEL_WAIT_MS / 1000} s; cancelling the turn`,
    );
  }
}
