import {
  createApprovalPolicy,
  type ApprovalAsker,
  type ApprovalFlags,
  type ApprovalPolicy,
} from "acp-terminal/approval";
import { choose, type ChoiceIo, type QuestionQueue } from "./choose.js";
import type { Renderer } from "../view/renderer.js";

/** What the CLI does with a command no pattern approves: allow (--yes), ask at the TTY, or refuse. */
export type ApprovalMode = "yes" | "ask" | "deny";

export const NO_TTY_REFUSAL =
  "no terminal to ask on: pass --yes to allow every command, or --allow PATTERN to allow the ones that match";

/**
 * The CLI's one approval policy for `terminal/create`, stdin writes, signals and the agent's file
 * writes (`fs/write_text_file`). On a TTY the
 * question waits its turn in `questions` (shared with permission requests), with the live
 * region paused; Ctrl-C (`io.signal`) ends it as a denial.
 */
export function cliApprovalPolicy(
  mode: ApprovalMode,
  flags: Pick<ApprovalFlags, "allow" | "allowAnywhere">,
  io: ChoiceIo,
  questions: QuestionQueue,
  renderer: Renderer,
): ApprovalPolicy {
  const ask: ApprovalAsker = async (_request, { question, choices }) =>
    questions.one(async () => {
      renderer.pause();
      try {
        const labels = choices.map((choice) => choice.label);
        const picked = await choose(io, question, labels, {
          index: choices.length - 1,
          verb: "denies",
        });
        return picked === undefined ? "deny" : choices[picked]!.answer;
      } finally {
        renderer.resume();
      }
    });
  return createApprovalPolicy({
    allowAll: mode === "yes",
    allow: flags.allow,
    allowAnywhere: flags.allowAnywhere === true,
    ask: mode === "ask" ? ask : undefined,
    refusal: NO_TTY_REFUSAL,
  });
}
