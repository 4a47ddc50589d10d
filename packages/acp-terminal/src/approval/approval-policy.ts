import type { ApprovalRequest, AuthorizeVerdict } from "../host/types.js";
import { confinementProblem } from "./confinement.js";
import { approvalQuestion, questionTooLong } from "./describe-request.js";
import { AllowPatterns, SessionMemory } from "./rules.js";

/** What a person answered: run it this once, allow the same for the rest of the session, or refuse. */
export type ApprovalAnswer = "allow_once" | "allow_always" | "deny";

/** One answer a question offers, in the words to show for it. */
export interface ApprovalChoice {
  answer: ApprovalAnswer;
  label: string;
}

/**
 * Asks a person about a request and resolves with their answer: the only part a surface (a TTY,
 * an MCP server's elicitation, a proxy's editor) supplies. Show `context.question` as it is and
 * offer `context.choices`. Asks come one at a time: the next waits for this answer. A request too
 * long to show whole is refused without asking.
 */
export type ApprovalAsker = (
  request: ApprovalRequest,
  context: ApprovalContext,
) => Promise<ApprovalAnswer> | ApprovalAnswer;

/** What the policy knows when it asks. */
export interface ApprovalContext {
  /**
   * Why no rule approved it: "" when none matched, else why the rule that matched does not apply
   * (`--allow 'git log *' matches, but git log "--output=x" writes a file`), for the question or
   * for a refusal that names it.
   */
  why: string;
  /**
   * The question, whole (approvalQuestion): every character of the agent's text visible, at most
   * MAX_QUESTION_CHARS characters, lines separated by `\n`.
   */
  question: string;
  /** The answers to offer, in order; the last is always `deny` (the safe default). */
  choices: readonly ApprovalChoice[];
}

export interface ApprovalPolicyOptions {
  /** Allow everything, unconfined (the CLI's `--yes`). Default false. */
  allowAll?: boolean;
  /** Pre-approval patterns for starting commands (see allow-pattern.ts and the README). */
  allow?: readonly string[];
  /**
   * Rules apply wherever a command runs (`--allow-anywhere`), not only under the session's cwd.
   * Default false.
   */
  allowAnywhere?: boolean;
  /** Who decides what no rule approves. Without one, such requests are refused with `refusal`. */
  ask?: ApprovalAsker | undefined;
  /** Why a request is refused when there is no one to ask; it ends up in the agent's error. */
  refusal?: string;
  /**
   * Told when a request is refused without asking `ask` although it would have been asked: too
   * long to show whole (`questionChars` more than MAX_QUESTION_CHARS). For a surface that words
   * its own refusals (the MCP server's).
   */
  notAsked?: (request: ApprovalRequest, questionChars: number) => void;
}

/**
 * The host's `authorize` hook, built from a policy; it also decides a client's file writes
 * (`AuthorizeFileWrite`), which no host asks about.
 */
export type ApprovalPolicy = (
  request: ApprovalRequest,
) => Promise<AuthorizeVerdict> | AuthorizeVerdict;

const DEFAULT_REFUSAL = "not approved: no allow pattern matches and there is no one to ask";

/**
 * The choices for a request: once, for the rest of the session (a command then runs confined, and
 * only where it can be: see confinement.ts), deny.
 */
function choicesFor(request: ApprovalRequest): ApprovalChoice[] {
  const once: ApprovalChoice = { answer: "allow_once", label: "Allow once" };
  const deny: ApprovalChoice = { answer: "deny", label: "Deny" };
  if (request.action !== "create") {
    return [once, { answer: "allow_always", label: "Allow for the rest of this session" }, deny];
  }
  if (request.program === null || confinementProblem() !== undefined) {
    return [once, deny];
  }
  const label = "Allow for the rest of this session, confined (read-only, no network)";
  return [once, { answer: "allow_always", label }, deny];
}

/**
 * One approval policy for every `terminal/create`, stdin write, signal and client file write:
 * `allowAll` (unconfined), then the rules: the allow patterns (creates only, under the session's
 * cwd unless `allowAnywhere`; a program with rules of its own, git, must pass them too: see
 * program-rules.ts) and what this session was told to always allow; then `ask` (never about a
 * request too long to show whole), else refuse. A create a rule approves runs confined (a grant
 * with `confined`: the read-only sandbox, no network), and where it cannot be confined no rule
 * approves it; only `allowAll` or a person's answer lets a command out. Pass the result as
 * `new TerminalHost({ authorize })`. Throws a RangeError naming a bad pattern.
 */
export function createApprovalPolicy(options: ApprovalPolicyOptions = {}): ApprovalPolicy {
  const patterns = new AllowPatterns(options.allow ?? [], options.allowAnywhere === true);
  const memory = new SessionMemory();
  const { ask } = options;
  const refusal = options.refusal ?? DEFAULT_REFUSAL;
  let turn: Promise<unknown> = Promise.resolve();

  async function decide(
    request: ApprovalRequest,
    why: string,
    question: string,
  ): Promise<AuthorizeVerdict> {
    // Asked again after the question before it: its answer may have been "always".
    const again = memory.verdict(request);
    if ("approved" in again) {
      return again.approved;
    }
    const answer = await ask!(request, { why, question, choices: choicesFor(request) });
    if (answer === "allow_always") {
      memory.remember(request);
    }
    return answer === "allow_once" || answer === "allow_always";
  }

  function otherwise(request: ApprovalRequest, why: string): Promise<AuthorizeVerdict> | string {
    const withWhy = (reason: string) => (why === "" ? reason : `${why}; ${reason}`);
    if (ask === undefined) {
      return withWhy(refusal);
    }
    const question = approvalQuestion(request);
    const tooLong = questionTooLong(question);
    if (tooLong !== undefined) {
      options.notAsked?.(request, question.length);
      return withWhy(tooLong);
    }
    const asking = turn.then(() => decide(request, why, question));
    turn = asking.catch(() => undefined);
    return asking;
  }

  return async (request) => {
    if (options.allowAll === true) {
      return true;
    }
    const byPattern = await patterns.verdict(request);
    if ("approved" in byPattern) {
      return byPattern.approved;
    }
    const byMemory = memory.verdict(request);
    if ("approved" in byMemory) {
      return byMemory.approved;
    }
    const why = [byPattern.why, byMemory.why].filter((reason) => reason !== "").join("; ");
    return otherwise(request, why);
  };
}
