import type {
  PermissionAnswer as RequestPermissionResponse,
  PermissionAsk as RequestPermissionRequest,
  PermissionChoice as PermissionOption,
} from "./permission-ask.js";
import { printable } from "acp-terminal/internal";
import { choose, type ChoiceIo } from "./choose.js";

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

function describe(request: RequestPermissionRequest): string {
  return request.toolCall.title
    ? `"${printable(request.toolCall.title)}"`
    : `tool call ${printable(request.toolCall.toolCallId)}`;
}

export async function decidePermission(
  request: RequestPermissionRequest,
  mode: PermissionMode,
  io: PermissionIo,
): Promise<RequestPermissionResponse> {
  if (io.signal.aborted) {
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
  return ask(request, io);
}

async function ask(
  request: RequestPermissionRequest,
  io: PermissionIo,
): Promise<RequestPermissionResponse> {
  const rejectIndex = request.options.findIndex(isReject);
  const choices = request.options.map((option) => `${printable(option.name)} (${option.kind})`);
  const picked = await choose(io, `The agent asks permission for ${describe(request)}:`, choices, {
    index: rejectIndex,
    verb: "rejects",
  });
  return picked === undefined ? CANCELLED : select(request.options[picked]);
}
