import { realpathSync } from "node:fs";
import { basename } from "node:path";
import type { ApprovalRequest, EnvVariable } from "../host/types.js";
import { wordsOf } from "./allow-pattern.js";
import { gitArgumentsProblem } from "./git-arguments.js";
import { gitConfigProblem } from "./git-config.js";
import { GIT_NEUTRAL_ENV } from "./git-neutral-env.js";

/** The program's name, through its symlinks (`/usr/bin/git` may link to a versioned file). */
function namesOf(program: string): string[] {
  try {
    return [basename(program), basename(realpathSync(program))];
  } catch {
    return [basename(program)]; // gone since it was resolved: its own name is all there is
  }
}

/**
 * What an allow pattern whose words match may approve, beyond its words: `problem` when it must
 * not (then the request goes on to the person), else the variables the command runs with.
 * Programs that run code from their options or from configuration the agent can write have rules
 * of their own (git: git-arguments.ts, git-config.ts and GIT_NEUTRAL_ENV); any other program is
 * what its words say.
 */
export async function programRules(
  request: ApprovalRequest,
): Promise<{ problem: string } | { env: readonly EnvVariable[] }> {
  const words = wordsOf(request);
  if (request.action !== "create" || typeof request.program !== "string" || words === undefined) {
    return { env: [] }; // no pattern matches these anyway
  }
  if (namesOf(request.program).includes("git")) {
    const problem =
      gitArgumentsProblem(words.slice(1)) ?? (await gitConfigProblem(request.program, request.cwd));
    return problem === undefined ? { env: GIT_NEUTRAL_ENV } : { problem };
  }
  return { env: [] };
}
export { GIT_NEUTRAL_ENV } from "./git-neutral-env.js";
