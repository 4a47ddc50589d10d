import { realpathSync } from "node:fs";
import { basename } from "node:path";
import type { AuthorizeRequest } from "../host/types.js";
import { wordsOf } from "./allow-pattern.js";
import { gitArgumentsProblem } from "./git-arguments.js";
import { gitConfigProblem } from "./git-config.js";

/** The program's name, through its symlinks (`/usr/bin/git` may link to a versioned file). */
function namesOf(program: string): string[] {
  try {
    return [basename(program), basename(realpathSync(program))];
  } catch {
    return [basename(program)]; // gone since it was resolved: its own name is all there is
  }
}

/**
 * Why an allow pattern must not approve this create although its words match, or undefined.
 * Programs that run code from their options or from configuration the agent can write have rules
 * of their own (git: git-arguments.ts and git-config.ts); any other program is what its words say.
 */
export async function programRulesProblem(request: AuthorizeRequest): Promise<string | undefined> {
  const words = wordsOf(request);
  if (request.action !== "create" || request.program === null || words === undefined) {
    return undefined; // no pattern matches these anyway
  }
  if (namesOf(request.program).includes("git")) {
    return (
      gitArgumentsProblem(words.slice(1)) ?? (await gitConfigProblem(request.program, request.cwd))
    );
  }
  return undefined;
}
