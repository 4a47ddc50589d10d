import type { AuthorizeCommand } from "../host/types.js";
import { resolveProgram } from "../spawn/resolve-program.js";
import { matchesAllowPattern, parseAllowPattern } from "./allow-pattern.js";
import { programRules } from "./program-rules.js";
import { ruleScopeProblem } from "./rule-scope.js";

/** A word a shell runs as it reads it (as resolve-program.ts reads a command line's first word). */
const PLAIN_WORD = /^[\w@%+:,./-]+$/;

/**
 * A command an agent runs itself and asks the client about first (ACP's `session/request_permission`:
 * a v2 `command` subject, or the command a tool call's raw input names, as claude's Bash and
 * codex's approvals do): a shell line, or an argv; where it runs, and the session's directory,
 * where rules apply.
 */
export interface AgentCommand {
  command: { line: string } | { argv: readonly string[] };
  cwd: string;
  sessionCwd: string;
}

/** What the allow patterns say of an agent's own command: approved (by which), or why not. */
export type AgentCommandVerdict = { approved: true; pattern: string } | { why: string };

/**
 * Whether `--allow` patterns approve a command the agent runs itself, by the rules a terminal's
 * command meets: its words (a line with shell syntax, or one that sets variables, matches
 * nothing), its program found on PATH, under the session's directory unless `anywhere`, and the
 * program's own rules (git's options and configuration). Unlike a terminal's command, nothing
 * about how it runs can be set: it is not confined (the agent starts it), and a program whose
 * rules need variables of their own (git runs with GIT_NEUTRAL_ENV) is not approved by a pattern
 * here: the person is asked, told why. `why` is "" when no pattern matched.
 */
export async function agentCommandVerdict(
  patterns: readonly string[],
  command: AgentCommand,
  anywhere: boolean,
): Promise<AgentCommandVerdict> {
  const request = asCreate(command);
  const matched = patterns
    .map(parseAllowPattern)
    .filter((pattern) => matchesAllowPattern(pattern, request));
  if (matched.length === 0) {
    return { why: "" };
  }
  const names = matched.map((pattern) => `'${pattern.source}'`).join(", ");
  const because = (problem: string) => ({ why: `--allow ${names} matches, but ${problem}` });
  if (!command.cwd.startsWith("/")) {
    // acp-terminal would resolve it against its own directory, not the agent's.
    return because("its directory is not an absolute path");
  }
  const scope = ruleScopeProblem(request, anywhere);
  if (scope !== undefined) {
    return because(scope);
  }
  const rules = await programRules(request);
  if ("problem" in rules) {
    return because(rules.problem);
  }
  if (rules.env.length > 0) {
    return because(
      "the agent runs it itself, and a pattern approves this program only with settings acp-terminal gives the commands it starts (the agent's own process cannot be given them)",
    );
  }
  return { approved: true, pattern: matched[0]!.source };
}

/** The command as the request a terminal's create would be, for the pattern rules. */
function asCreate(command: AgentCommand): AuthorizeCommand & { action: "create" } {
  const { cwd, sessionCwd } = command;
  const path = process.env["PATH"];
  const base = {
    action: "create" as const,
    owner: { connectionId: "agent", sessionId: "" },
    cwd,
    env: [],
    sandbox: "off" as const,
    sessionCwd,
  };
  if ("line" in command.command) {
    const line = command.command.line;
    const first = line.trim().split(/[ \t]+/)[0] ?? "";
    return {
      ...base,
      command: line,
      args: [],
      shell: true,
      program: PLAIN_WORD.test(first) ? resolveProgram(first, cwd, path) : null,
      argv: ["sh", "-c", line],
    };
  }
  const [file = "", ...args] = command.command.argv;
  return {
    ...base,
    command: file,
    args,
    shell: false,
    program: file === "" ? null : resolveProgram(file, cwd, path),
    argv: [file, ...args],
  };
}
