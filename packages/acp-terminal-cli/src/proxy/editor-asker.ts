import { randomUUID } from "node:crypto";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import {
  approvalPolicyOptions,
  createApprovalPolicy,
  shortApprovalAction,
  type ApprovalAnswer,
  type ApprovalAsker,
  type ApprovalContext,
  type ApprovalFlags,
  type ApprovalPolicy,
  type ApprovalRequest,
} from "acp-terminal/approval";
import { cutText, messageOf } from "acp-terminal/internal";
import { idKey } from "./pending-requests.js";
import type { RpcId } from "./wire-message.js";
import { field } from "./json-rpc.js";

/** The kind of permission option (ACP's words) that each answer is. */
const KINDS = {
  allow_once: "allow_once",
  allow_always: "allow_always",
  deny: "reject_once",
} as const;

/** Characters of the editor's error message quoted in a refusal. */
const MAX_QUOTED_CHARS = 300;

const METHOD_NOT_FOUND = -32601;

/** What the proxy writes to the editor: a message of its own (not a line passed on). */
export type SendToEditor = (message: Record<string, unknown>) => void;

/**
 * The question as the editor shows it: a tool call of its own titled with what would run
 * (`Run: <command line>`, cut to one line), whose text is the approval module's question whole
 * (the real command line, the program or the shell that runs it, the cwd, the environment the
 * agent set, the sandbox) and why a rule that matched did not approve it, with the answers it
 * offers as the options (allow once, allow for the
 * session, deny; each option's id is its answer).
 */
export function permissionParams(
  request: ApprovalRequest,
  toolCallId: string,
  context: Pick<ApprovalContext, "question" | "choices" | "why">,
): RequestPermissionRequest {
  const verb =
    request.action === "create" ? "Run" : request.action === "write_file" ? "Write" : "Send";
  // Why a rule that matched did not approve it, after the question (which it leaves as it is).
  const text = context.why === "" ? context.question : `${context.question}\n(${context.why})`;
  return {
    sessionId: request.owner.sessionId,
    toolCall: {
      toolCallId,
      title: `${verb}: ${shortApprovalAction(request)}`,
      kind: request.action === "write_file" ? "edit" : "execute",
      status: "pending",
      content: [{ type: "content", content: { type: "text", text } }],
      rawInput:
        request.action === "write_file"
          ? { path: request.path, cwd: request.cwd }
          : {
              command: [request.command, ...request.args].join(" "),
              cwd: request.cwd,
              sandbox: request.sandbox,
            },
    },
    options: context.choices.map(({ answer, label }) => ({
      optionId: answer,
      name: label,
      kind: KINDS[answer],
    })),
  };
}

/**
 * The part of approval that asks a person, in the editor's own UI: each question is a
 * `session/request_permission` request of the proxy's (ids no agent can guess, so an answer is
 * never taken for another's), answered allow once, allow for the session, or deny; a cancelled
 * question is a denial. An editor that answers with an error (one that cannot ask: -32601) makes
 * the ask fail with a message saying so and what to pass instead, which the agent's error carries.
 */
export class EditorAsker {
  readonly #prefix = `acp-terminal-proxy/${randomUUID()}/`;
  #next = 0;
  readonly #waiting = new Map<
    string,
    { resolve: (answer: ApprovalAnswer) => void; reject: (error: Error) => void }
  >();
  #gone: string | undefined;

  constructor(private readonly send: SendToEditor) {}

  readonly ask: ApprovalAsker = (request, context) => {
    if (this.#gone !== undefined) {
      throw new Error(this.#gone);
    }
    const id = `${this.#prefix}${this.#next++}`;
    const params = permissionParams(request, id, context);
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      this.#waiting.set(idKey(id), { resolve, reject });
      this.send({ jsonrpc: "2.0", id, method: "session/request_permission", params });
    });
  };

  /** Whether an answer from the editor is to one of these questions. */
  asked(id: RpcId): boolean {
    return this.#waiting.has(idKey(id));
  }

  /** The editor's answer to a question (a response message). */
  answer(id: RpcId, response: Record<string, unknown>): void {
    const key = idKey(id);
    const waiting = this.#waiting.get(key);
    this.#waiting.delete(key);
    if (waiting === undefined) {
      return;
    }
    const error = response["error"];
    if (error !== undefined) {
      waiting.reject(new Error(refusal(error)));
      return;
    }
    const outcome = field(response["result"], "outcome");
    const picked = field(outcome, "optionId");
    waiting.resolve(
      field(outcome, "outcome") === "selected" &&
        (picked === "allow_once" || picked === "allow_always")
        ? picked
        : "deny",
    );
  }

  /** The editor is gone: every question waiting, and any asked later, fails with `reason`. */
  abandon(reason: string): void {
    this.#gone = reason;
    for (const waiting of this.#waiting.values()) {
      waiting.reject(new Error(reason));
    }
    this.#waiting.clear();
  }
}

/** Why the editor could not be asked, from its error answer. */
function refusal(error: unknown): string {
  const code = field(error, "code");
  const message = field(error, "message");
  const quoted = typeof message === "string" ? cutText(message, MAX_QUOTED_CHARS) : "no message";
  const cannotAsk =
    code === METHOD_NOT_FOUND
      ? "the editor has no permission UI"
      : "the editor could not ask for permission";
  return `${cannotAsk} (it answered session/request_permission with ${String(code)} ${quoted}): pass --yes to acp-terminal proxy to allow every command, or --allow PATTERN for the ones that match`;
}

/**
 * The proxy's approval policy: `--yes`, then `--allow` patterns, then what the session was told to
 * always allow, then the editor's question (`ask`). A question that cannot be asked (the editor
 * has no permission UI, or went away) refuses the request with the reason, which the agent's
 * error carries.
 */
export function editorApprovalPolicy(flags: ApprovalFlags, ask: ApprovalAsker): ApprovalPolicy {
  const policy = createApprovalPolicy(approvalPolicyOptions(flags, { ask }));
  return async (request) => {
    try {
      return await policy(request);
    } catch (error) {
      return messageOf(error);
    }
  };
}
