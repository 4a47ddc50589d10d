import type { ToolCallContent } from "@agentclientprotocol/sdk/experimental/v2";
import { setTimeout as delay } from "node:timers/promises";
import { CheckFailure } from "../base/probe.js";
import type { V2Check, V2CheckContext, V2CheckResult, V2CheckStatus } from "./base/check.js";
import { CancelScenario } from "./base/cancel-scenario.js";
import type { V2Session } from "./base/session.js";

export interface V2RunnerContext {
  session: V2Session;
  /** Aborted by `session/cancel`: checks not yet started are skipped (see `afterTurnCancel`). */
  signal: AbortSignal;
  cancelWindowMs: number;
  /** Unique per battery, so a second prompt's terminal ids differ. */
  battery: number;
}

/** Default deadline of one check (the cancel checks add the cancel window to it). */
export const V2_CHECK_TIMEOUT_MS = 15_000;

const MARK: Record<V2CheckStatus, string> = {
  pass: "✓",
  fail: "✗",
  "not-exercised": "○",
  skip: "–",
};

/** Runs the checks in order; each is an `execute` tool call with its terminals embedded. */
export async function runV2Checks(
  checks: readonly V2Check[],
  ctx: V2RunnerContext,
): Promise<V2CheckResult[]> {
  const cancel = new CancelScenario(ctx.cancelWindowMs);
  const results: V2CheckResult[] = [];
  for (const check of checks) {
    if (ctx.session.connectionSignal.aborted) {
      results.push({
        ...header(check),
        status: "skip",
        detail: "the client had closed the connection",
      });
      continue;
    }
    const judgesThePast =
      check.afterTurnCancel === "always" ||
      (check.afterTurnCancel === "if-cancel-window-opened" && cancel.started);
    if (ctx.signal.aborted && !judgesThePast) {
      results.push({ ...header(check), status: "skip", detail: "the turn was cancelled first" });
      continue;
    }
    results.push(await runCheck(check, ctx, cancel));
  }
  return results;
}

function header(check: V2Check): Pick<V2CheckResult, "id" | "name" | "kind"> {
  return { id: check.id, name: check.name, kind: check.kind };
}

async function runCheck(
  check: V2Check,
  ctx: V2RunnerContext,
  cancel: CancelScenario,
): Promise<V2CheckResult> {
  const { session } = ctx;
  const toolCallId = `conformance-v2-${ctx.battery}-${check.id}`;
  const terminals: ToolCallContent[] = [];
  const checkCtx: V2CheckContext = {
    session,
    terminalId: (name) => `v2-${ctx.battery}-${check.id}-${name}`,
    embed: async (terminalId) => {
      terminals.push({ type: "terminal", terminalId });
      await session.toolCall({ toolCallId, content: [...terminals] });
    },
    answered: async (step) => {
      await session.ping(step);
    },
    cancel,
    signal: ctx.signal,
  };
  let status: V2CheckStatus;
  let detail: string;
  const timeoutMs = V2_CHECK_TIMEOUT_MS + (check.waitsForUser === true ? ctx.cancelWindowMs : 0);
  try {
    await session.toolCall({
      toolCallId,
      title: check.name,
      kind: "execute",
      status: "in_progress",
      rawInput: { check: check.id, kind: check.kind, protocol: "v2" },
    });
    ({ status, detail } = await withCheckDeadline(
      check.run(checkCtx),
      session,
      timeoutMs,
      `the check did not finish within ${timeoutMs} ms (not counting the waits for the client's answers)`,
    ));
  } catch (error) {
    status = "fail";
    detail =
      error instanceof CheckFailure || error instanceof Error ? error.message : String(error);
  }
  try {
    await session.toolCall({
      toolCallId,
      status: status === "fail" ? "failed" : "completed",
      content: [...terminals, { type: "content", content: { type: "text", text: detail } }],
      rawOutput: { status, detail },
    });
    await session.say(
      `${MARK[status]} ${status.toUpperCase()} [${check.kind}] ${check.name}: ${detail}\n`,
    );
  } catch (error) {
    // A client that closed the connection cannot be told; the report still records the result.
    if (!session.connectionSignal.aborted) {
      throw error;
    }
  }
  return { ...header(check), status, detail };
}

/**
 * Fails `work` once it has run `timeoutMs`, not counting the time spent waiting for the client's
 * answers to pings (each bounded by ROUND_TRIP_TIMEOUT_MS on its own): a client that answers
 * slowly, within that bound, is not failed for the number of round trips a check makes.
 */
async function withCheckDeadline<T>(
  work: Promise<T>,
  session: V2Session,
  timeoutMs: number,
  timeoutMessage: string,
): Promise<T> {
  const ac = new AbortController();
  const started = Date.now();
  const waitedBefore = session.pingWaitMs;
  const expired = (async (): Promise<never> => {
    for (;;) {
      const ran = Date.now() - started - (session.pingWaitMs - waitedBefore);
      if (ran >= timeoutMs) {
        throw new CheckFailure(timeoutMessage);
      }
      await delay(timeoutMs - ran, undefined, { signal: ac.signal });
    }
  })();
  expired.catch(() => undefined);
  try {
    return await Promise.race([work, expired]);
  } finally {
    ac.abort();
  }
}
