import { agentCommandVerdict, printable } from "acp-terminal/approval";
import { policyAction, type PermissionPolicy } from "../command/permission-policy.js";
import type { PermissionAsk } from "./permission-ask.js";

/** The rules a permission request meets before a person is asked (see permissionByRules). */
export interface PermissionRules {
  /** `--allow` patterns (and the policy's `allow`): for the commands the agent runs itself. */
  allow: readonly string[];
  allowAnywhere: boolean;
  /** `--approve-reads`: what only reads (kind `read` or `search`) is allowed. */
  approveReads: boolean;
  /** `--deny-all`: every request is rejected. */
  denyAll: boolean;
  policy: PermissionPolicy | undefined;
  /** The session's directory, where rules apply. */
  sessionCwd: string;
}

/** What the rules decided: allow or reject, and the words that say which rule; else ask or not. */
export type RuleDecision =
  { answer: "allow" | "reject"; because: string } | { answer: "ask"; why: string };

/** Kinds of tool calls that only read (what `--approve-reads` allows). */
const READS: ReadonlySet<string> = new Set(["read", "search"]);

/**
 * A permission request against the rules, in this order: `--deny-all`; the policy's `autoDeny`;
 * a command the agent runs itself that an `--allow` pattern approves (agentCommandVerdict: its
 * words, program and scope, git's rules; it runs unconfined, since the agent starts it); the
 * policy's `autoApprove`; `--approve-reads` for what only reads; the policy's `escalate` and
 * `defaultAction`. `ask` (with why a pattern that matched does not approve, if one did) leaves
 * the decision to the mode: `--yes`, a person at the TTY, or a refusal.
 */
export async function permissionByRules(
  request: PermissionAsk,
  rules: PermissionRules,
): Promise<RuleDecision> {
  if (rules.denyAll) {
    return { answer: "reject", because: "--deny-all" };
  }
  const subject = request.subject;
  const tokens = tokensOf(request);
  const said = rules.policy === undefined ? undefined : policyAction(rules.policy, tokens);
  if (said?.action === "deny" && said.rule !== undefined) {
    return { answer: "reject", because: `--permission-policy autoDeny '${printable(said.rule)}'` };
  }
  let why = "";
  if (subject?.command !== undefined && !patternCanJudge(subject)) {
    why =
      "an --allow pattern judges only a plain command: this request is not an execute, carries a diff, or has inputs the pattern cannot see";
  } else if (subject?.command !== undefined) {
    const verdict = await agentCommandVerdict(
      rules.allow,
      {
        command: subject.command,
        cwd: subject.cwd ?? rules.sessionCwd,
        sessionCwd: rules.sessionCwd,
      },
      rules.allowAnywhere,
    );
    if ("approved" in verdict) {
      return {
        answer: "allow",
        because: `--allow '${printable(verdict.pattern)}'; the agent runs it itself, unconfined`,
      };
    }
    why = verdict.why;
  }
  if (said?.action === "approve" && said.rule !== undefined) {
    return {
      answer: "allow",
      because: `--permission-policy autoApprove '${printable(said.rule)}'`,
    };
  }
  // The kind is the agent's word: one that names a command (of any shape) or carries a diff is
  // not a read.
  const reads =
    subject !== undefined &&
    subject.command === undefined &&
    field(subject.rawInput, "command") === undefined &&
    field(subject.rawInput, "cmd") === undefined &&
    subject.diffs.length === 0 &&
    READS.has(subject.kind ?? "");
  if (rules.approveReads && reads) {
    return { answer: "allow", because: `--approve-reads (a ${subject.kind ?? "read"})` };
  }
  if (said?.action === "deny") {
    return { answer: "reject", because: "--permission-policy defaultAction deny" };
  }
  if (said?.action === "approve") {
    return { answer: "allow", because: "--permission-policy defaultAction approve" };
  }
  return { answer: "ask", why };
}

/**
 * Raw-input fields an --allow pattern may leave unread: they do not change what runs. Any other
 * field (`args`, `env`, a `host`, a file's content) might, so the request is asked instead.
 */
const INPUTS_A_PATTERN_MAY_IGNORE = new Set([
  "command",
  "cmd",
  "cwd",
  "description",
  "summary",
  "timeout",
  "run_in_background",
  "riskLevel",
  "riskLevelReason",
]);

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;

/** Whether the command shown is all a request would do: an execute with no diff and no other input. */
function patternCanJudge(subject: NonNullable<PermissionAsk["subject"]>): boolean {
  if ((subject.kind !== undefined && subject.kind !== "execute") || subject.diffs.length > 0) {
    return false;
  }
  const input = subject.rawInput;
  if (input === undefined) {
    return true;
  }
  return (
    typeof input === "object" &&
    input !== null &&
    !Array.isArray(input) &&
    Object.keys(input).every((key) => INPUTS_A_PATTERN_MAY_IGNORE.has(key))
  );
}

/**
 * What the policy's rules match, lower case, as acpx reads a request: its kind, its tool's name,
 * its title and the title's first word.
 */
function tokensOf(request: PermissionAsk): string[] {
  const title = request.toolCall.title?.trim();
  const values = [request.subject?.kind, request.subject?.tool, title, title?.split(/[:\s]/, 1)[0]];
  return values.flatMap((value) =>
    typeof value === "string" && value.trim() !== "" ? [value.trim().toLowerCase()] : [],
  );
}
