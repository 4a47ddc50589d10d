/**
 * Which commands the server runs. An MCP stdio server has no TTY to ask on, so nothing runs
 * unless the person who started it said so: `--yes` (every command, the word the `run` CLI uses
 * for "allow every permission request") or `--allow PATTERN` (command lines matching a pattern).
 */
export type ApprovalPolicy = { kind: "yes" } | { kind: "allow"; sources: readonly string[]; patterns: readonly RegExp[] } | { kind: "deny" };

/** Longest `--allow` pattern accepted, like the tools' watcher patterns. */
export const MAX_ALLOW_PATTERN_LENGTH = 512;

/** Builds the policy from the flags, or an error message naming the flag and the value. */
export function approvalPolicy(yes: boolean, allow: readonly string[]): ApprovalPolicy | string {
  if (yes) return { kind: "yes" };
  if (allow.length === 0) return { kind: "deny" };
  const patterns: RegExp[] = [];
  for (const source of allow) {
    if (source.length === 0 || source.length > MAX_ALLOW_PATTERN_LENGTH) {
      return `Invalid --allow: expected a regular expression of 1 to ${MAX_ALLOW_PATTERN_LENGTH} characters, received ${JSON.stringify(source)}`;
    }
    try {
      // Anchored: the whole command line must match, not a piece of it.
      patterns.push(new RegExp(`^(?:${source})$`, "s"));
    } catch (error) {
      return `Invalid --allow: ${JSON.stringify(source)} is not a regular expression (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  return { kind: "allow", sources: [...allow], patterns };
}

/**
 * Undefined when the policy allows `commandLine`; otherwise why not and what to do. A command that
 * sets environment variables matches no pattern: `BASH_ENV`, `PATH`, `LD_PRELOAD` or `GIT_*`
 * change what an allowed line runs (bash runs `$(...)` in `BASH_ENV` before `echo hi`).
 */
export function refusal(policy: ApprovalPolicy, commandLine: string, setsEnv = false): string | undefined {
  switch (policy.kind) {
    case "yes":
      return undefined;
    case "allow":
      if (setsEnv) return "a command that sets environment variables matches no --allow pattern (they can change what it runs); run it without env, or restart the server with --yes";
      if (policy.patterns.some((pattern) => pattern.test(commandLine))) return undefined;
      return `not allowed by this server's --allow patterns (${policy.sources.join(", ")}); restart it with a pattern that matches, or with --yes`;
    case "deny":
      return "this server runs no command without approval; restart it with --yes (allow every command) or --allow PATTERN";
  }
}

/** How `--help` and the README name the policy in force. */
export function describePolicy(policy: ApprovalPolicy): string {
  switch (policy.kind) {
    case "yes":
      return "every command (--yes)";
    case "allow":
      return `command lines matching ${policy.sources.join(" or ")}`;
    case "deny":
      return "no command (pass --yes or --allow)";
  }
}
