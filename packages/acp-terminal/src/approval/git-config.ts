import { execFile } from "node:child_process";
import { absolutePathEntries } from "../spawn/env.js";
import { messageOf } from "../core/thrown.js";

/**
 * Keys of a repository's own configuration that make git run a program: `core.fsmonitor`,
 * `core.pager`, `diff.external`, `diff.<driver>.textconv`/`.command`, `filter.<driver>.clean`,
 * `core.hooksPath`, `gpg.program`, `core.sshCommand`, `credential.helper` ... Matched by the last
 * part of the key, so a key git adds later with such a name is caught too. Included files are
 * listed as the scope that includes them.
 */
const RUNS_A_PROGRAM =
  /(?:^pager\.|command$|cmd$|program$|helper$|editor$|pager$|driver$|textconv$|hookspath$|gitproxy$|external$|uploadpack$|receivepack$|fsmonitor$|askpass$|\.clean$|\.smudge$|\.process$)/i;

/** Values that turn such a key off. */
const OFF = /^(?:|false|no|off|0)$/i;

const CHECK_TIMEOUT_MS = 5_000;
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Why git must not be approved by a pattern in `cwd`, or undefined: the repository there (as git
 * finds it from `cwd`) sets, in its own `.git/config` or a file that includes, a key that runs a
 * program, which an agent could have written. What the user configured (system, global, the
 * command line) is theirs and not looked at. Read by `git config --list`, which runs no program.
 */
export async function gitConfigProblem(git: string, cwd: string): Promise<string | undefined> {
  const env = {
    ...process.env,
    PATH: absolutePathEntries(process.env.PATH) ?? "",
    GIT_PAGER: "cat",
  };
  let listed: string;
  try {
    listed = await new Promise<string>((resolve, reject) => {
      execFile(
        git,
        ["config", "--list", "--show-scope", "-z"],
        { cwd, env, timeout: CHECK_TIMEOUT_MS, maxBuffer: MAX_CONFIG_BYTES, encoding: "utf8" },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
  } catch (error) {
    return `git's configuration in ${cwd} could not be checked (${messageOf(error).slice(0, 200)})`;
  }
  const fields = listed.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    const entry = fields[i + 1]!;
    const newline = entry.indexOf("\n");
    const key = newline < 0 ? entry : entry.slice(0, newline);
    const value = newline < 0 ? "" : entry.slice(newline + 1);
    if (
      (scope === "local" || scope === "worktree") &&
      RUNS_A_PROGRAM.test(key) &&
      !OFF.test(value)
    ) {
      return `the repository's own git config sets ${key} (${JSON.stringify(value.slice(0, 100))}), which makes git run a program`;
    }
  }
  return undefined;
}
