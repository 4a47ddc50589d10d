import type { ApprovalRequest, AuthorizeVerdict } from "../host/types.js";
import { matchesAllowPattern, parseAllowPattern, type AllowPattern } from "./allow-pattern.js";
import { unshowable } from "./describe-request.js";
import { programRules } from "./program-rules.js";

/** What a person answered: run it this once, allow the same for the rest of the session, or refuse. */
export type ApprovalAnswer = "allow_once" | "allow_always" | "deny";

/**
 * Asks someone about a request (show it with `describeApprovalRequest`). Asks come one at a
 * time: the next waits for this answer. A request too long to show whole is refused without
 * asking.
 */
export type ApprovalAsker = (
  request: ApprovalRequest,
  context: ApprovalContext,
) => Promise<ApprovalAnswer> | ApprovalAnswer;

/** What the policy knows when it asks. */
export interface ApprovalContext {
  /**
   * Why no pattern approved it: "" when none matched, else why the program's rules refuse what one
   * matched (`--allow 'git log *' matches, but git log "--output=x" writes a file`), for the
   * question or for a refusal that names it.
   */
  why: string;
}

export interface ApprovalPolicyOptions {
  /** Allow everything (the CLI's `--yes`). Default false. */
  allowAll?: boolean;
  /** Pre-approval patterns for starting commands (see allow-pattern.ts and the README). */
  allow?: readonly string[];
  /** Who decides what no pattern approves. Without one, such requests are refused with `refusal`. */
  ask?: ApprovalAsker | undefined;
  /** Why a request is refused when there is no one to ask; it ends up in the agent's error. */
  refusal?: string;
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
 * What "allow for the rest of this session" covers: the same program and arguments in the same
 * cwd with the same environment (the words alone are not the command: `make` elsewhere runs
 * another Makefile, and a program named `./run x` reads like `./run` with `x`), every write to the
 * same terminal, every signal to the same terminal, every write to the same file.
 */
function rememberedAs(request: ApprovalRequest): string {
  switch (request.action) {
    case "create":
      return JSON.stringify([
        "create",
        request.command,
        request.args,
        request.shell,
        request.cwd,
        request.env,
        request.program,
        request.sandbox,
      ]);
    case "write":
    case "signal":
      return JSON.stringify([request.action, request.terminalId]);
    case "write_file":
      return JSON.stringify([request.action, request.path]);
  }
}

/**
 * One approval policy for every `terminal/create`, stdin write and signal: `allowAll`, then the
 * allow patterns (creates only; a program with rules of its own, git, must pass them too: see
 * program-rules.ts), then what this session was told to always allow, then `ask` (never about a
 * request too long to show whole), else refuse. Pass the result as `new TerminalHost({ authorize })`.
 * Throws a RangeError naming a bad pattern.
 */
export function createApprovalPolicy(options: ApprovalPolicyOptions = {}): ApprovalPolicy {
  const patterns: AllowPattern[] = (options.allow ?? []).map(parseAllowPattern);
  const { ask } = options;
  const refusal = options.refusal ?? DEFAULT_REFUSAL;
  /** Per session (connection and session id): what it was told to always allow. */
  const always = new Map<string, Set<string>>();
  let turn: Promise<unknown> = Promise.resolve();

  const sessionOf = (request: ApprovalRequest) =>
    JSON.stringify([request.owner.connectionId, request.owner.sessionId]);
  const remembered = (request: ApprovalRequest) =>
    always.get(sessionOf(request))?.has(rememberedAs(request)) === true;

  async function decide(request: ApprovalRequest, why: string): Promise<boolean | string> {
    // Asked again after the question before it: its answer may have been "always".
    if (remembered(request)) {
      return true;
    }
    const answer = await ask!(request, { why });
    if (answer === "allow_always") {
      const session = sessionOf(request);
      const set = always.get(session) ?? new Set<string>();
      set.add(rememberedAs(request));
      always.set(session, set);
    }
    return answer === "allow_once" || answer === "allow_always";
  }

  /**
   * The patterns' verdict: approved (with what the program's rules add to its environment), or
   * why not: "" when none matches, else why the program's rules refuse what one matched.
   */
  async function patternsVerdict(
    request: ApprovalRequest,
  ): Promise<{ approved: AuthorizeVerdict } | { why: string }> {
    const matched = patterns.filter((pattern) => matchesAllowPattern(pattern, request));
    if (matched.length === 0) {
      return { why: "" };
    }
    const rules = await programRules(request);
    if ("problem" in rules) {
      const sources = matched.map((pattern) => `'${pattern.source}'`).join(", ");
      return { why: `--allow ${sources} matches, but ${rules.problem}` };
    }
    return { approved: rules.env.length === 0 ? true : { allow: true, env: rules.env } };
  }

  async function otherwise(request: ApprovalRequest, why: string): Promise<boolean | string> {
    if (remembered(request)) {
      return true;
    }
    const withWhy = (reason: string) => (why === "" ? reason : `${why}; ${reason}`);
    if (ask === undefined) {
      return withWhy(refusal);
    }
    const tooLong = unshowable(request);
    if (tooLong !== undefined) {
      return withWhy(tooLong);
    }
    const asking = turn.then(() => decide(request, why));
    turn = asking.catch(() => undefined);
    return asking;
  }

  return async (request) => {
    if (options.allowAll === true) {
      return true;
    }
    const verdict = await patternsVerdict(request);
    return "approved" in verdict ? verdict.approved : otherwise(request, verdict.why);
  };
}
