import type { AgentContext, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { AcpTerminalCapability } from "acp-terminal/protocol";
import type { Check, CheckResult, CheckStatus } from "./base/check.js";
import { CheckSkip, TerminalProbe, withDeadline } from "./base/probe.js";
import { messageOf } from "acp-terminal/internal";

/** Default deadline of one check, so a broken client cannot hang the battery. */
export const CHECK_TIMEOUT_MS = 15_000;

export interface RunnerContext {
  client: AgentContext;
  sessionId: string;
  /** Aborted by `session/cancel`: the battery stops after the current check. */
  signal: AbortSignal;
  extension?: AcpTerminalCapability | undefined;
}

const MARK: Record<CheckStatus, string> = { pass: "✓", fail: "✗", skip: "–" };

/**
 * Runs the checks one after another. Each shows up in the client as an `execute` tool call named
 * after the check, with its terminals embedded, and ends with a pass/fail line of message text.
 */
export async function runChecks(
  checks: readonly Check[],
  ctx: RunnerContext,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    if (ctx.signal.aborted) {
      break;
    }
    results.push(await runCheck(check, ctx));
  }
  return results;
}

async function runCheck(check: Check, ctx: RunnerContext): Promise<CheckResult> {
  const toolCallId = `conformance-${check.id}`;
  const send = (update: SessionUpdate) =>
    ctx.client.notify("session/update", { sessionId: ctx.sessionId, update });
  const terminals: ToolCallContent[] = [];
  await send({
    sessionUpdate: "tool_call",
    toolCallId,
    title: check.name,
    kind: "execute",
    status: "in_progress",
    rawInput: { check: check.id, kind: check.kind },
  });
  const probe = new TerminalProbe(ctx.client, ctx.sessionId);
  const embed = async (terminalId: string) => {
    terminals.push({ type: "terminal", terminalId });
    await send({ sessionUpdate: "tool_call_update", toolCallId, content: [...terminals] });
  };
  let status: CheckStatus;
  let detail: string;
  try {
    const timeoutMs = check.timeoutMs ?? CHECK_TIMEOUT_MS;
    detail = await withDeadline(
      check.run({ probe, embed, extension: ctx.extension }),
      timeoutMs,
      `the check did not finish within ${timeoutMs} ms`,
    );
    status = "pass";
  } catch (error) {
    detail = messageOf(error);
    // Behaviour is only ever reported: when it cannot be observed, that is a skip, not a failure.
    status = error instanceof CheckSkip || check.kind === "behaviour" ? "skip" : "fail";
    if (status === "skip" && !(error instanceof CheckSkip)) {
      detail = `could not observe: ${detail}`;
    }
  }
  await probe.cleanup();
  await send({
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: status === "fail" ? "failed" : "completed",
    content: [...terminals, { type: "content", content: { type: "text", text: detail } }],
    rawOutput: { status, detail },
  });
  await send({
    sessionUpdate: "agent_message_chunk",
    content: {
      type: "text",
      text: `${MARK[status]} ${status.toUpperCase()} [${check.kind}] ${check.name}: ${detail}\n`,
    },
  });
  return { id: check.id, name: check.name, kind: check.kind, status, detail };
}
