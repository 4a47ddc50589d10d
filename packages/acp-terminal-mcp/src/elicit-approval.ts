import { createHash } from "node:crypto";
import {
  printableCut,
  sameCommandKey,
  shortApprovalAction,
  type ApprovalAnswer,
  type ApprovalAsker,
  type ApprovalChoice,
  type ApprovalRequest,
  type AuthorizeRequest,
} from "acp-terminal/approval";
import {
  inputRequired,
  inputResponse,
  type InputRequiredResult,
  type RequestStateCodec,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { clientCapabilities } from "./client-capabilities.js";
import { createScope, type HostAnswer, type McpCall } from "./mcp-call.js";

const KEY_PREFIX = "approve-";

/** What a retried call carries in `requestState`: the questions the server asked, and when (signed). */
export interface AskedState {
  asked: string[];
  askedAtMs?: number;
}

/** Characters of a host's answer a refusal quotes. */
const QUOTED_ANSWER_CHARS = 200;

/** The form's value for each answer that allows (declining the form is the denial). */
const DECISIONS: Partial<Record<ApprovalAnswer, string>> = {
  allow_once: "once",
  allow_always: "session",
};

/** The policy's choices that allow, as the form offers them (declining the form is the denial). */
function allowsOf(choices: readonly ApprovalChoice[]): { const: string; title: string }[] {
  return choices.flatMap(({ answer, label }) => {
    const value = DECISIONS[answer];
    return value === undefined ? [] : [{ const: value, title: label }];
  });
}

/** The form the person answers: one of the allowing choices. */
function decisionSchema(allows: readonly { const: string; title: string }[]) {
  return {
    type: "object" as const,
    properties: {
      decision: { type: "string" as const, title: "Allow this command?", oneOf: [...allows] },
    },
    required: ["decision"],
  };
}

/** An answer carried back is for the request asked about: acp-terminal's "same command", hashed. */
export function approvalKey(request: AuthorizeRequest): string {
  return createHash("sha256").update(sameCommandKey(request)).digest("hex").slice(0, 32);
}

/** A command in one line for messages: every character visible, cut to 200 with its length. */
export function shortCommandLine(command: string, args: readonly string[] | null): string {
  return printableCut([command, ...(args ?? [])].join(" "), 200);
}

/**
 * The approval hook's `ask` for an MCP server: it never waits. A command is asked about through
 * the call that starts it (found in `createScope`): an answer the client already gave (a retried
 * call) decides; otherwise, when the client takes elicitation, the question is recorded for the
 * call to return as `input_required` and the start is refused for now; otherwise it is refused,
 * with the reason kept on the call for its answer.
 */
export function elicitationAsker(): ApprovalAsker {
  return (request, { why, question, choices }) => {
    if (request.action === "write_file") {
      return "deny"; // an MCP server writes no client files
    }
    const call = createScope.getStore()?.call;
    const command = shortApprovalAction(request);
    if (!call?.open) {
      call?.refuse(command, { kind: "call_ended" });
      return "deny";
    }
    const key = approvalKey(request);
    const answer = call.answers.get(key);
    if (typeof answer === "object") {
      call.refuse(command, answer);
      return "deny";
    }
    if (answer !== undefined) {
      return answer;
    }
    if (!call.canAsk || request.action !== "create") {
      call.refuse(command, { kind: "policy", start: request.action === "create", why });
      return "deny";
    }
    call.questions.set(key, { key, message: question, command, allows: allowsOf(choices) });
    return "deny";
  };
}

/**
 * The policy's `notAsked` for an MCP server: a command too long to show whole in a question is
 * refused through the call that starts it, saying so (not as a person's denial).
 */
export function refuseTooLong(request: ApprovalRequest, questionChars: number): void {
  if (request.action !== "write_file") {
    createScope
      .getStore()
      ?.call?.refuse(shortApprovalAction(request), { kind: "too_long", chars: questionChars });
  }
}

/** Whether the client of this request takes form elicitation (2026-07-28: per request; 2025: from `initialize`). */
export function clientTakesElicitation(server: Server, ctx: ServerContext): boolean {
  const elicitation = clientCapabilities(server, ctx).elicitation;
  // `elicitation: {}` is form mode (the 2025-06-18 shape); `{url: {}}` alone is URL mode only.
  return (
    elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined)
  );
}

/** The answers a retried call carries for the questions the server asked (read from the signed state). */
export function answersFrom(ctx: ServerContext): Map<string, HostAnswer> {
  const answers = new Map<string, HostAnswer>();
  const state = ctx.mcpReq.requestState<AskedState>();
  const asked = Array.isArray(state?.asked) ? state.asked.slice(0, 16) : [];
  const askedAtMs = typeof state?.askedAtMs === "number" ? state.askedAtMs : undefined;
  for (const key of asked) {
    const view = inputResponse(ctx.mcpReq.inputResponses, `${KEY_PREFIX}${key}`);
    if (view.kind !== "elicit") {
      continue;
    }
    const decision = view.action === "accept" ? view.content?.["decision"] : undefined;
    if (decision === DECISIONS.allow_always || decision === DECISIONS.allow_once) {
      answers.set(key, decision === DECISIONS.allow_always ? "allow_always" : "allow_once");
      continue;
    }
    answers.set(key, {
      kind:
        view.action === "decline" ? "declined" : view.action === "cancel" ? "cancelled" : "unclear",
      answer: quoted({ action: view.action, ...(view.content ? { content: view.content } : {}) }),
      ...(askedAtMs !== undefined ? { afterMs: Math.max(0, Date.now() - askedAtMs) } : {}),
    });
  }
  return answers;
}

/** A host's answer as a refusal quotes it: its JSON with every character visible, cut to QUOTED_ANSWER_CHARS. */
function quoted(answer: unknown): string {
  return printableCut(JSON.stringify(answer) ?? "null", QUOTED_ANSWER_CHARS);
}

/** The `input_required` answer that asks the call's questions; the retry carries the answers back. */
export async function askingResult(
  call: McpCall,
  codec: RequestStateCodec<AskedState>,
): Promise<InputRequiredResult> {
  const questions = [...call.questions.values()];
  return inputRequired({
    inputRequests: Object.fromEntries(
      questions.map((question) => [
        `${KEY_PREFIX}${question.key}`,
        inputRequired.elicit({
          message: question.message,
          requestedSchema: decisionSchema(question.allows),
        }),
      ]),
    ),
    requestState: await codec.mint({
      asked: questions.map((question) => question.key),
      askedAtMs: Date.now(),
    }),
  });
}
