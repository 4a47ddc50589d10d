import { messageOf } from "../errors.js";
import type { TerminalProvider } from "../providers/types.js";
import { withinMs } from "./deadline.js";
import type { OutputLog } from "./output-log.js";

export interface KillTarget {
  provider: TerminalProvider;
  terminalId: string;
  log: OutputLog;
  /** Bound on each provider call (see `RunTuning.callWaitMs`). */
  callWaitMs: number;
  /** Resolves true once the run has settled, false after `ms`. */
  settledWithin(ms: number): Promise<boolean>;
}

/**
 * Stops a running command. A chosen `signal` goes through the provider's signal capability and is
 * given `forceAfterMs` to work; a refused signal escalates at once. Then (or without a signal) the
 * provider's kill. Without the signal capability the kill is used and a notice says so. Returns
 * whether the run settled within `killWaitMs` of the kill; the caller settles it otherwise.
 */
export async function killSequence(
  target: KillTarget,
  options: { signal?: string; forceAfterMs: number; killWaitMs: number },
): Promise<boolean> {
  const { provider, terminalId, log } = target;
  const wanted = options.signal?.toUpperCase();
  if (wanted) {
    if (provider.capabilities.signal && provider.signal) {
      const delivered = await callProvider(target, () => provider.signal!(terminalId, wanted));
      if (delivered && (await target.settledWithin(options.forceAfterMs))) return true;
      if (delivered) log.appendNotice(`[acp-process] ${wanted} did not end the command within ${options.forceAfterMs} ms; forcing it with the ${provider.kind} provider's kill`);
    } else if (wanted !== "SIGKILL") {
      log.appendNotice(`[acp-process] ${wanted} cannot be sent with the ${provider.kind} provider (the client does not offer signals); used its kill instead`);
    }
  }
  await callProvider(target, () => provider.kill(terminalId));
  return target.settledWithin(options.killWaitMs);
}

/**
 * A kill or signal call, bounded by `callWaitMs`; a refusal or silence is noted, not thrown.
 * Returns whether the provider accepted the call.
 */
async function callProvider(target: KillTarget, call: () => Promise<void>): Promise<boolean> {
  const { provider, log, callWaitMs } = target;
  try {
    const answered = await withinMs(call(), callWaitMs);
    if (!answered.ok) log.appendNotice(`[acp-process] the ${provider.kind} provider did not answer within ${callWaitMs} ms`);
    return answered.ok;
  } catch (error) {
    // The command may have exited meanwhile; the exit path settles the run either way.
    log.appendNotice(`[acp-process] ${provider.kind} provider refused: ${messageOf(error)}`);
    return false;
  }
}
