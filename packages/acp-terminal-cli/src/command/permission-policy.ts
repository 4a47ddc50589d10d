import { readFileSync } from "node:fs";
import path from "node:path";
import { parseAllowPattern } from "acp-terminal/approval";
import { messageOf } from "acp-terminal/internal";

/** Bytes of a policy file read at most, and entries of each of its lists. */
const MAX_POLICY_BYTES = 64 * 1024;
const MAX_RULES = 256;

/** What a rule of the policy does with a permission request it matches. */
export type PolicyAction = "approve" | "deny" | "escalate";
const ACTIONS: readonly PolicyAction[] = ["approve", "deny", "escalate"];

/**
 * A permission policy (`--permission-policy FILE` or inline JSON), in acpx's words so that a file
 * written for acpx works here: `autoApprove`, `autoDeny` and `escalate` list what a permission
 * request is (its tool kind, `read`, `edit`, `execute`…; its tool's name; its title or the title's
 * first word; `*` for any), checked deny first, then approve, then escalate (ask a person);
 * `defaultAction` says what happens to the rest. `allow` adds command patterns, as `--allow` takes
 * them, for the commands the agent runs itself.
 */
export interface PermissionPolicy {
  autoApprove: readonly string[];
  autoDeny: readonly string[];
  escalate: readonly string[];
  defaultAction?: PolicyAction;
  allow: readonly string[];
}

/** `--permission-policy`'s value (a file, or JSON starting with `{`), read and checked. */
export function readPermissionPolicy(given: string, cwd: string): PermissionPolicy | string {
  const inline = given.trim().startsWith("{");
  const source = inline ? "--permission-policy" : `--permission-policy ${given}`;
  let text = given;
  if (!inline) {
    try {
      const bytes = readFileSync(path.resolve(cwd, given));
      if (bytes.byteLength > MAX_POLICY_BYTES) {
        return `Invalid ${source}: ${bytes.byteLength} bytes, more than ${MAX_POLICY_BYTES}`;
      }
      text = bytes.toString("utf8");
    } catch (error) {
      return `Cannot read ${source}: ${messageOf(error)}`;
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `Invalid ${source}: not JSON (${messageOf(error)})`;
  }
  return checkedPolicy(parsed, source);
}

function checkedPolicy(value: unknown, source: string): PermissionPolicy | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `Invalid ${source}: expected a JSON object with autoApprove, autoDeny, escalate, defaultAction or allow`;
  }
  const field = (name: string): unknown => Reflect.get(value, name);
  const known = new Set(["autoApprove", "autoDeny", "escalate", "defaultAction", "allow"]);
  const unknown = Object.keys(value).find((key) => !known.has(key));
  if (unknown !== undefined) {
    return `Invalid ${source}: unknown key ${JSON.stringify(unknown.slice(0, 100))} (the keys: ${[...known].join(", ")})`;
  }
  const lists: Record<string, string[]> = {};
  for (const key of ["autoApprove", "autoDeny", "escalate", "allow"]) {
    const list = field(key) ?? [];
    if (
      !Array.isArray(list) ||
      list.length > MAX_RULES ||
      !list.every((entry) => typeof entry === "string" && entry.trim() !== "")
    ) {
      return `Invalid ${source}: ${key} must be a list of at most ${MAX_RULES} non-empty strings`;
    }
    lists[key] = list.map((entry: string) => entry.trim());
  }
  for (const pattern of lists["allow"]!) {
    try {
      parseAllowPattern(pattern);
    } catch (error) {
      return `Invalid ${source}: allow: ${messageOf(error).replace(/^Invalid allow pattern /, "")}`;
    }
  }
  const given = field("defaultAction");
  const action = ACTIONS.find((known) => known === given);
  if (given !== undefined && action === undefined) {
    return `Invalid ${source}: defaultAction must be one of ${ACTIONS.join(", ")}, received ${JSON.stringify(given)}`;
  }
  return {
    autoApprove: lists["autoApprove"]!,
    autoDeny: lists["autoDeny"]!,
    escalate: lists["escalate"]!,
    allow: lists["allow"]!,
    ...(action === undefined ? {} : { defaultAction: action }),
  };
}

/**
 * What the policy says of a request that is `tokens` (its kind, tool name, title, title's first
 * word, lower case): deny first, then approve, then escalate, then the default; undefined when
 * nothing is said. The rule that matched is given, for the line that says why.
 */
export function policyAction(
  policy: PermissionPolicy,
  tokens: readonly string[],
): { action: PolicyAction; rule?: string } | undefined {
  const matches = (rules: readonly string[]) =>
    rules.find((rule) => rule === "*" || tokens.includes(rule.toLowerCase()));
  for (const [rules, action] of [
    [policy.autoDeny, "deny"],
    [policy.autoApprove, "approve"],
    [policy.escalate, "escalate"],
  ] as const) {
    const rule = matches(rules);
    if (rule !== undefined) {
      return { action, rule };
    }
  }
  return policy.defaultAction === undefined ? undefined : { action: policy.defaultAction };
}
