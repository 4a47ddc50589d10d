import type {
  PermissionAnswer as RequestPermissionResponse,
  PermissionAsk as RequestPermissionRequest,
  PermissionChoice as PermissionOption,
} from "./permission-ask.js";
import { MAX_QUESTION_CHARS, printable } from "acp-terminal/approval";
import { choose, type ChoiceIo } from "./choose.js";
import { MAX_PERMISSION_OPTIONS } from "./permission-params.js";

/** `yes`: allow (--yes); `ask`: ask the person at the TTY; `deny`: reject and say how to allow. */
export type PermissionMode = "yes" | "ask" | "deny";

export interface PermissionIo extends ChoiceIo {
  notice(message: string): void;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

function select(option: PermissionOption | undefined): RequestPermissionResponse {
  return option === undefined
    ? CANCELLED
    : { outcome: { outcome: "selected", optionId: option.optionId } };
}

const isAllow = (option: PermissionOption) =>
  option.kind === "allow_once" || option.kind === "allow_always";
const isReject = (option: PermissionOption) =>
  option.kind === "reject_once" || option.kind === "reject_always";

/** The title (else the tool call's id), whole for a question; cut to 200 characters for a notice. */
function describe(request: RequestPermissionRequest, whole = false): string {
  const text = request.toolCall.title || request.toolCall.toolCallId;
  const shown =
    whole || text.length <= 200
      ? printable(text)
      : `${printable(text.slice(0, 200))}… (${text.length} chars)`;
  return request.toolCall.title ? `"${shown}"` : `tool call ${shown}`;
}

/**
 * Answers a permission request: `yes` picks the first allow option, `deny` the first reject one
 * (saying how to allow), `ask` lists them on the TTY under the title and `details` (a v2 request's
 * subject: see permission-subject.ts). More than MAX_PERMISSION_OPTIONS options, or a question too
 * long to show whole, is answered cancelled without asking, whatever the protocol version.
 */
export async function decidePermission(
  request: RequestPermissionRequest,
  mode: PermissionMode,
  io: PermissionIo,
  details: readonly string[] = [],
): Promise<RequestPermissionResponse> {
  if (io.signal.aborted) {
    return CANCELLED;
  }
  if (request.options.length > MAX_PERMISSION_OPTIONS) {
    io.notice(
      `Permission request ${describe(request)} cancelled: it offers ${request.options.length} options, more than the ${MAX_PERMISSION_OPTIONS} a question lists.`,
    );
    return CANCELLED;
  }
  if (mode === "yes") {
    return select(request.options.find(isAllow));
  }
  if (mode === "deny") {
    io.notice(
      `Permission denied for ${describe(request)}: pass --yes to allow the agent's requests, or run on a terminal to be asked.`,
    );
    return select(request.options.find(isReject));
  }
  return ask(request, io, details);
}

async function ask(
  request: RequestPermissionRequest,
  io: PermissionIo,
  details: readonly string[],
): Promise<RequestPermissionResponse> {
  const rejectIndex = request.options.findIndex(isReject);
  const choices = request.options.map(
    (option) => `${printable(option.name)} (${printable(option.kind)})`,
  );
  const question = [`The agent asks permission for ${describe(request, true)}:`, ...details].join(
    "\n",
  );
  const chars = question.length + choices.join("\n").length;
  if (chars > MAX_QUESTION_CHARS) {
    io.notice(
      `Permission request cancelled without asking: it takes ${chars} characters to show whole, more than the ${MAX_QUESTION_CHARS} a question shows (nothing is cut from a question).`,
    );
    return CANCELLED;
  }
  const picked = await choose(io, question, choices, {
    index: rejectIndex,
    verb: "rejects",
  });
  return picked === undefined ? CANCELLED : select(request.options[picked]);
}
