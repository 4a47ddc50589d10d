import { messageOf } from "../../base/errors.js";
import type { TerminalProvider } from "../../providers/types.js";
import { withinMs } from "./deadline.js";

/**
 * Releases a run's terminal, after the caller's onStart hook (so a terminal embedded in a tool
 * call exists when the client first renders it), each wait bounded by `waitMs`. Returns null when
 * released, else why not (never throws: a release failure must not change how the run ended).
 */
export async function releaseTerminal(
  provider: TerminalProvider,
  terminalId: string,
  startHook: Promise<void>,
  waitMs: number,
): Promise<string | null> {
  await withinMs(startHook, waitMs);
  const outcome = await withinMs(
    provider.release(terminalId).then(() => null, messageOf),
    waitMs,
  );
  return outcome.ok ? outcome.value : `no answer within ${waitMs} ms`;
}
