import type { ApprovalRequest, AuthorizeGrant, AuthorizeVerdict } from "../host/types.js";
import { matchesAllowPattern, parseAllowPattern, type AllowPattern } from "./allow-pattern.js";
import { confinementProblem } from "./confinement.js";
import { programRules } from "./program-rules.js";
import { ruleScopeProblem } from "./rule-scope.js";
import { sameCommandKey } from "./same-command.js";

/** A rule's verdict: approved, or why not ("" when no rule matched). */
export type RuleVerdict = { approved: AuthorizeVerdict } | { why: string };

/** What runs a command approved by a rule: the read-only sandbox, no network (see confinement.ts). */
const CONFINED: AuthorizeGrant = { allow: true, confined: true };

/**
 * The allow patterns (`--allow`): a create one matches is approved confined, when it runs under
 * the session's cwd (or `anywhere`), where it can be confined, and when the program's own rules
 * agree (git: program-rules.ts); a client file write a `write:` pattern matches, as it is.
 * Throws a RangeError naming a bad pattern.
 */
export class AllowPatterns {
  readonly #patterns: readonly AllowPattern[];

  constructor(
    sources: readonly string[],
    private readonly anywhere: boolean,
  ) {
    this.#patterns = sources.map(parseAllowPattern);
  }

  async verdict(request: ApprovalRequest): Promise<RuleVerdict> {
    const matched = this.#patterns.filter((pattern) => matchesAllowPattern(pattern, request));
    if (matched.length === 0) {
      return { why: "" };
    }
    const because = (problem: string) => ({
      why: `--allow ${matched.map((pattern) => `'${pattern.source}'`).join(", ")} matches, but ${problem}`,
    });
    if (request.action === "write_file") {
      return { approved: true }; // a file pattern: the file is the whole of what it approves
    }
    const problem = confinementProblem() ?? ruleScopeProblem(request, this.anywhere);
    if (problem !== undefined) {
      return because(problem);
    }
    const rules = await programRules(request);
    if ("problem" in rules) {
      return because(rules.problem);
    }
    return { approved: rules.env.length === 0 ? CONFINED : { ...CONFINED, env: rules.env } };
  }
}

/**
 * What each session (connection and session id) was told to allow for the rest of it, by
 * `sameCommandKey`. A remembered create is a rule's approval, so it runs confined, and only where
 * it can be; a remembered write or signal reaches a terminal that was approved already.
 */
export class SessionMemory {
  readonly #always = new Map<string, Set<string>>();

  #sessionOf(request: ApprovalRequest): string {
    return JSON.stringify([request.owner.connectionId, request.owner.sessionId]);
  }

  remember(request: ApprovalRequest): void {
    const session = this.#sessionOf(request);
    const keys = this.#always.get(session) ?? new Set<string>();
    keys.add(sameCommandKey(request));
    this.#always.set(session, keys);
  }

  verdict(request: ApprovalRequest): RuleVerdict {
    if (this.#always.get(this.#sessionOf(request))?.has(sameCommandKey(request)) !== true) {
      return { why: "" };
    }
    if (request.action !== "create") {
      return { approved: true };
    }
    const problem =
      request.program === null
        ? "its program is not one found here (run elsewhere, or not found), so it cannot be confined"
        : confinementProblem();
    return problem === undefined
      ? { approved: CONFINED }
      : { why: `this session allowed it always, but ${problem}` };
  }
}
