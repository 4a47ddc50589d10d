import { createHash } from "node:crypto";
import type { ApprovalAsker, AuthorizeRequest } from "acp-terminal";
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

/** Characters a question may have; a command that needs more is not asked about but refused. */
export const MAX_QUESTION_CHARS = 4000;
const KEY_PREFIX = "approve-";

/** What a retried call carries in `requestState`: the questions the server asked, and when (signed). */
export interface AskedState {
  asked: string[];
  askedAtMs?: number;
}

/** Characters of a host's answer a refusal quotes. */
const QUOTED_ANSWER_CHARS = 200;

/** The form the person answers: run it once, or allow it for the rest of this server's session. */
const DECISION_SCHEMA = {
  type: "object" as const,
  properties: {
    decision: {
      type: "string" as const,
      title: "Allow this command?",
      oneOf: [
        { const: "once", title: "Run it this once" },
        { const: "session", title: "Allow it for the rest of this server's session" },
      ],
    },
  },
  required: ["decision"],
};

/**
 * What "the same command" is for an answer: the program, its arguments, whether a shell runs it,
 * the directory and the variables set (as `createApprovalPolicy` remembers "allow always").
 */
export function approvalKey(request: AuthorizeRequest): string {
  const identity = JSON.stringify([
    request.action,
    request.command,
    request.args,
    request.shell,
    request.cwd,
    request.env,
  ]);
  return createHash("sha256").update(identity).digest("hex").slice(0, 32);
}

/**
 * Agent-chosen text with every character visible: control, bidi, zero-width and separator characters as
 * `\xNN`/`\uNNNN`, runs of blanks counted (`⟨600 spaces⟩`), so nothing in a question can hide
 * what follows it. Never cut: a text too long to show is not asked about.
 */
export function visible(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g, (c) => {
      const code = c.charCodeAt(0);
      return code <= 0xff
        ? `\\x${code.toString(16).padStart(2, "0")}`
        : `\\u${code.toString(16).padStart(4, "0")}`;
    })
    .replace(/ {2,}/g, (run) => `⟨${run.length} spaces⟩`);
}

/** A command in one line for messages: every character visible, cut to 200 with its length. */
export function shortCommandLine(command: string, args: readonly string[] | null): string {
  const line = visible([command, ...(args ?? [])].join(" "));
  return line.length > 200 ? `${line.slice(0, 200)}… (${line.length} characters)` : line;
}

/** What a request would do, in one line for refusal messages (cut: a question shows it whole). */
export function shortAction(request: AuthorizeRequest): string {
  const command = shortCommandLine(request.command, request.args);
  switch (request.action) {
    case "create":
      return command;
    case "write":
      return `a ${request.data.byteLength}-byte write to the stdin of ${command}`;
    case "signal":
      return `${request.signal} to ${command}`;
  }
}

/** The question for a command: what runs, how, where, and with which variables set. */
export function questionFor(request: AuthorizeRequest): string {
  const lines = ["An agent asks to run a command on this machine.", ""];
  if (request.shell || request.args.length === 0) {
    lines.push(`command line: \`${visible(request.command)}\``);
    lines.push("  (run by the shell: bash -c, else sh -c)");
  } else {
    lines.push(`program: \`${visible(request.command)}\``);
    request.args.forEach((arg, i) => lines.push(`  argument ${i + 1}: \`${visible(arg)}\``));
  }
  lines.push(`directory: \`${visible(request.cwd)}\``);
  if (request.env.length === 0) {
    lines.push("environment: the server's, unchanged");
  } else {
    lines.push("environment: the server's, with these set:");
    for (const { name, value } of request.env) {
      lines.push(`  \`${visible(name)}\` = \`${visible(value)}\``);
    }
  }
  return lines.join("\n");
}

/**
 * The approval hook's `ask` for an MCP server: it never waits. A command is asked about through
 * the call that starts it (found in `createScope`): an answer the client already gave (a retried
 * call) decides; otherwise, when the client takes elicitation, the question is recorded for the
 * call to return as `input_required` and the start is refused for now; otherwise it is refused,
 * with the reason kept on the call for its answer.
 */
export function elicitationAsker(): ApprovalAsker {
  return (request, { why }) => {
    if (request.action === "write_file") {
      return "deny"; // an MCP server writes no client files
    }
    const call = createScope.getStore()?.call;
    const command = shortAction(request);
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
    const message = questionFor(request);
    if (message.length > MAX_QUESTION_CHARS) {
      call.refuse(command, { kind: "too_long", chars: message.length });
      return "deny";
    }
    call.questions.set(key, { key, message, command });
    return "deny";
  };
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
    if (decision === "session" || decision === "once") {
      answers.set(key, decision === "session" ? "allow_always" : "allow_once");
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
  const json = visible(JSON.stringify(answer) ?? "null");
  return json.length > QUOTED_ANSWER_CHARS
    ? `${json.slice(0, QUOTED_ANSWER_CHARS)}… (${json.length} characters)`
    : json;
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
        inputRequired.elicit({ message: question.message, requestedSchema: DECISION_SCHEMA }),
      ]),
    ),
    requestState: await codec.mint({
      asked: questions.map((question) => question.key),
      askedAtMs: Date.now(),
    }),
  });
}
