import { createApprovalPolicy, type ApprovalAnswer, type ApprovalPolicy } from "acp-terminal";
import { describeAuthorizeRequest } from "acp-terminal";
import type { ApprovalRequest } from "acp-terminal";
import { choose, type ChoiceIo, type QuestionQueue } from "./choose.js";
import type { Renderer } from "../view/renderer.js";

/** What the CLI does with a command no pattern approves: allow (--yes), ask at the TTY, or refuse. */
export type ApprovalMode = "yes" | "ask" | "deny";

export const NO_TTY_REFUSAL =
  "no terminal to ask on: pass --yes to allow every command, or --allow PATTERN to allow the ones that match";

const ANSWERS: readonly ApprovalAnswer[] = ["allow_once", "allow_always", "deny"];
const CHOICES = ["Allow once", "Allow for the rest of this session", "Deny"];

function question(request: ApprovalRequest): string {
  const [what, ...details] = describeAuthorizeRequest(request);
  const verb =
    request.action === "create" ? "run" : request.action === "write_file" ? "write" : "send";
  return [`The agent wants to ${verb}: ${what}`, ...details].join("\n");
}

/**
 * The CLI's one approval policy for `terminal/create`, stdin writes, signals and the agent's file
 * writes (`fs/write_text_file`). On a TTY the
 * question waits its turn in `questions` (shared with permission requests), with the live
 * region paused; Ctrl-C (`io.signal`) ends it as a denial.
 */
export function cliApprovalPolicy(
  mode: ApprovalMode,
  allow: readonly string[],
  io: ChoiceIo,
  questions: QuestionQueue,
  renderer: Renderer,
): ApprovalPolicy {
  const ask = async (request: ApprovalRequest): Promise<ApprovalAnswer> =>
    questions.one(async () => {
      renderer.pause();
      try {
        const picked = await choose(io, question(request), CHOICES, { index: 2, verb: "denies" });
        return picked === undefined ? "deny" : ANSWERS[picked]!;
      } finally {
        renderer.resume();
      }
    });
  return createApprovalPolicy({
    allowAll: mode === "yes",
    allow,
    ask: mode === "ask" ? ask : undefined,
    refusal: NO_TTY_REFUSAL,
  });
}
