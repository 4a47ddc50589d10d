import { messageOf } from "../../base/errors.js";
import type { TerminalProvider } from "../../providers/types.js";
import { withinMs } from "./deadline.js";
import type { OutputLog } from "../output/output-log.js";

export interface KillTarget {
  provider: TerminalProvider;
  terminalId: string;
  log: OutputLog;
  /** Bound on each provider call (see `RunTuning.callWaitMs`). */
  callWaitMs: number;
  /** Resolves true once the run has settled, false after `ms`. */
  settledWithin(ms: number): Promise<boolean>;
}

/** What a kill did: the signals delivered (in order; `terminal/kill` = the provider's own kill) and whether the run ended. */
export interface KillReport {
  settled: boolean;
  signalsSent: string[];
}

/**
 * Stops a running command. A chosen `signal` goes through the provider's signal capability and is
 * given `forceAfterMs` to work; a refused signal escalates at once. Escalation is SIGKILL through
 * the signal capability (never the provider's kill, which would send SIGTERM a second time before
 * its own SIGKILL), else the provider's kill. Without the signal capability the kill is used and a
 * notice says so. `escalate: false` delivers the signal only and waits up to `killWaitMs` for the
 * exit. Reports whether the run settled; with escalation the caller settles it otherwise.
 */
export async function killSequence(
  target: KillTarget,
  options: { signal?: string; forceAfterMs: number; killWaitMs: number; escalate?: boolean },
): Promise<KillReport> {
  const { provider, terminalId, log } = target;
  const wanted = options.signal?.toUpperCase();
  const signalsSent: string[] = [];
  const canSignal = provider.capabilities.signal && provider.signal !== undefined;
  if (wanted) {
    if (canSignal) {
      const delivered = await callProvider(target, () => provider.signal!(terminalId, wanted));
      if (delivered) {
        signalsSent.push(wanted);
      }
      if (options.escalate === false) {
        return { settled: await target.settledWithin(options.killWaitMs), signalsSent };
      }
      if (
        delivered &&
        (await target.settledWithin(
          wanted === "SIGKILL" ? options.killWaitMs : options.forceAfterMs,
        ))
      ) {
        return { settled: true, signalsSent };
      }
      if (delivered && wanted !== "SIGKILL") {
        log.appendNotice(
          `[acp-process] ${wanted} did not end the command within ${options.forceAfterMs} ms; forcing it with SIGKILL`,
        );
        if (await callProvider(target, () => provider.signal!(terminalId, "SIGKILL"))) {
          signalsSent.push("SIGKILL");
          if (await target.settledWithin(options.killWaitMs)) {
            return { settled: true, signalsSent };
          }
        }
      }
    } else if (wanted !== "SIGKILL") {
      log.appendNotice(
        `[acp-process] ${wanted} cannot be sent with the ${provider.kind} provider (the client does not offer signals); used its kill instead`,
      );
    }
  }
  if (await callProvider(target, () => provider.kill(terminalId))) {
    signalsSent.push("terminal/kill");
  }
  return { settled: await target.settledWithin(options.killWaitMs), signalsSent };
}

/**
 * A kill or signal call, bounded by `callWaitMs`; a refusal or silence is noted, not thrown.
 * Returns whether the provider accepted the call.
 */
async function callProvider(target: KillTarget, call: () => Promise<void>): Promise<boolean> {
  const { provider, log, callWaitMs } = target;
  try {
    const answered = await withinMs(call(), callWaitMs);
    if (!answered.ok) {
      log.appendNotice(
        `[acp-process] the ${provider.kind} provider did not answer within ${callWaitMs} ms`,
      );
    }
    return answered.ok;
  } catch (error) {
    // The command may have exited meanwhile; the exit path settles the run either way.
    log.appendNotice(`[acp-process] ${provider.kind} provider refused: ${messageOf(error)}`);
    return false;
  }
}
