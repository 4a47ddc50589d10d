import type {
  PermissionAnswer as RequestPermissionResponse,
  PermissionAsk as RequestPermissionRequest,
  PermissionChoice as PermissionOption,
} from "./permission-ask.js";
import { MAX_QUESTION_CHARS, printable } from "acp-terminal/approval";
import { choose, type ChoiceIo } from "./choose.js";
import { MAX_PERMISSION_OPTIONS } from "./permission-params.js";
import { permissionByRules, type PermissionRules } from "./permission-rules.js";

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

/**
 * The option that allows this once (`allow_once`), else one that allows at all: `--yes` and the
 * rules allow what they are asked about, not everything like it for the rest of the session
 * (Gemini CLI refuses `allow_always` in a folder it does not trust, and its edit fails).
 */
const allowOnce = (options: readonly PermissionOption[]) =>
  options.find((option) => option.kind === "allow_once") ??
  options.find((option) => option.kind === "allow_always");
/** The option that rejects this once, else one that rejects at all. */
const rejectOnce = (options: readonly PermissionOption[]) =>
  options.find((option) => option.kind === "reject_once") ??
  options.find((option) => option.kind === "reject_always");
const isReject = (option: PermissionOption) =>
  option.kind === "reject_once" || option.kind === "reject_always";

/**
 * What the request is about in a line: for a notice, the command the agent runs itself when it
 * names one (codex's titles say only "Run command?"), cut to 200 characters; else, and for a
 * question (whole, with the command on its own line below), the title, else the tool call's id.
 */
function describe(request: RequestPermissionRequest, whole = false): string {
  const command = whole ? undefined : request.subject?.command;
  const line =
    command === undefined ? undefined : "line" in command ? command.line : command.argv.join(" ");
  const text = line ?? (request.toolCall.title || request.toolCall.toolCallId);
  const shown =
    whole || text.length <= 200
      ? printable(text)
      : `${printable(text.slice(0, 200))}… (${text.length} chars)`;
  if (line !== undefined) {
    return `the command "${shown}"`;
  }
  return request.toolCall.title ? `"${shown}"` : `tool call ${shown}`;
}

/**
 * Answers a permission request: first the rules (`--deny-all`, `--allow` for a command the agent
 * runs itself, `--approve-reads`, the policy: permission-rules.ts), whose decision is said in a
 * notice; then `yes` picks the allow-once option, `deny` the reject-once one (saying how to
 * allow), `ask` lists them on the TTY under the title and `details` (what the request is about:
 * see readers/permission-subject.ts), with why a pattern that matched does not approve. More than
 * MAX_PERMISSION_OPTIONS options, or a question too long to show whole, is answered cancelled
 * without asking, whatever the protocol version.
 */
export async function decidePermission(
  request: RequestPermissionRequest,
  mode: PermissionMode,
  io: PermissionIo,
  details: readonly string[] = [],
  rules?: PermissionRules,
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
  const ruled = rules === undefined ? undefined : await permissionByRules(request, rules);
  if (ruled !== undefined && ruled.answer !== "ask") {
    io.notice(
      `acp-terminal: ${ruled.answer === "allow" ? "allowed" : "rejected"} ${describe(request)} (${ruled.because})`,
    );
    return select(
      ruled.answer === "allow" ? allowOnce(request.options) : rejectOnce(request.options),
    );
  }
  const why = ruled?.why ?? "";
  if (mode === "yes") {
    return select(allowOnce(request.options));
  }
  if (mode === "deny") {
    io.notice(
      `Permission denied for ${describe(request)}${why === "" ? "" : ` (${why})`}: pass --yes to allow the agent's requests, --allow PATTERN for the commands it runs, --approve-reads for what only reads, or run on a terminal to be asked.`,
    );
    return select(rejectOnce(request.options));
  }
  return ask(request, io, why === "" ? details : [...details, `  (${why})`]);
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
