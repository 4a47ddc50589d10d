import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { absolutePathEntries } from "../spawn/env.js";
import { messageOf } from "../core/thrown.js";
import { GIT_NEUTRAL_ENV } from "./git-neutral-env.js";

/**
 * Keys of a repository's own configuration that make git run a program: `core.fsmonitor`,
 * `core.pager`, `diff.external`, `diff.<driver>.textconv`/`.command`, `filter.<driver>.clean`,
 * `core.hooksPath`, `gpg.program`, `core.sshCommand`, `credential.helper` ... Matched by the last
 * part of the key, so a key git adds later with such a name is caught too. Included files are
 * listed as the scope that includes them.
 */
const RUNS_A_PROGRAM =
  /(?:^pager\.|command$|cmd$|program$|helper$|editor$|pager$|driver$|textconv$|hookspath$|gitproxy$|external$|uploadpack$|receivepack$|fsmonitor$|askpass$|\.clean$|\.smudge$|\.process$)/i;

/**
 * Keys that make git fetch, and so run the transport a URL names (`ext::sh -c …`) or a remote
 * helper (`remote.<name>.vcs`): a promisor remote fetches any object it misses (`git show
 * <hash>`), and `url.*`/`protocol.*` rewrite or allow transports. Refused whatever their value:
 * the neutral environment forbids every transport as well, and this says why up front.
 */
const FETCHES =
  /^(?:extensions\.partialclone|remote\..*\.(?:promisor|partialclonefilter|vcs)|protocol\..*|url\..*)$/i;

/** A remote's URL through a transport helper (`ext::`, `fd::`, `<helper>::`), which runs it. */
const HELPER_URL_KEY = /^remote\..*\.(?:push)?url$/i;
const HELPER_URL = /^[a-z][a-z0-9+.-]*::/i;

/** A submodule git would open (`ignore` other than `all`), in `.gitmodules` or the repository's config. */
const SUBMODULE_IGNORE = /^submodule\.(.*)\.ignore$/i;

/** Values that turn such a key off. */
const OFF = /^(?:|false|no|off|0)$/i;

const CHECK_TIMEOUT_MS = 5_000;
const MAX_CONFIG_BYTES = 1024 * 1024;
/** Submodules checked at most, and how deep (a submodule's submodules ...); more is refused. */
const MAX_SUBMODULES = 32;
const MAX_SUBMODULE_DEPTH = 3;

/** A git that reads configuration only: every transport forbidden, no lazy fetch; `input` on its stdin. */
function readGit(git: string, args: readonly string[], cwd: string, input = ""): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: absolutePathEntries(process.env.PATH) ?? "",
  };
  for (const { name, value } of GIT_NEUTRAL_ENV) {
    env[name] = value;
  }
  return new Promise<string>((resolve, reject) => {
    const child = execFile(
      git,
      args,
      { cwd, env, timeout: CHECK_TIMEOUT_MS, maxBuffer: MAX_CONFIG_BYTES, encoding: "utf8" },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
    child.stdin?.on("error", () => undefined); // git may exit before reading: its status says why
    child.stdin?.end(input);
  });
}

/** `git config --list -z` output as [key, value] pairs (with `--show-scope`, [scope, key, value]). */
function entriesOf(listed: string, scoped: boolean): string[][] {
  const fields = listed.split("\0");
  const entries: string[][] = [];
  const step = scoped ? 2 : 1;
  for (let i = 0; i + step - 1 < fields.length - 1; i += step) {
    const entry = fields[i + step - 1]!;
    const newline = entry.indexOf("\n");
    const key = newline < 0 ? entry : entry.slice(0, newline);
    const value = newline < 0 ? "" : entry.slice(newline + 1);
    entries.push(scoped ? [fields[i]!, key, value] : [key, value]);
  }
  return entries;
}

/** Why one key of the repository's (or a submodule's) own config must not pass, or undefined. */
function keyProblem(key: string, value: string): string | undefined {
  const shown = `${key} (${JSON.stringify(value.slice(0, 100))})`;
  if (RUNS_A_PROGRAM.test(key) && !OFF.test(value)) {
    return `sets ${shown}, which makes git run a program`;
  }
  if (FETCHES.test(key) || (HELPER_URL_KEY.test(key) && HELPER_URL.test(value))) {
    return `sets ${shown}, which makes git fetch (and run what the URL names)`;
  }
  if (SUBMODULE_IGNORE.test(key) && value.toLowerCase() !== "all") {
    return `sets ${shown}, which makes git open the submodule (its own config could run a program)`;
  }
  return undefined;
}

/**
 * Why git must not be approved by a pattern in `cwd`, or undefined: the repository there (as git
 * finds it from `cwd`), or one of its submodules, sets in its own config (or a file that
 * includes) a key that runs a program or fetches, which an agent could have written; or its
 * `.gitmodules` opens a submodule. What the user configured (system, global, the command line) is
 * theirs and not looked at. Read by `git config --list`, `git rev-parse` and `git cat-file`, which
 * run no program, with every transport forbidden; the three at once (a git start each).
 */
export async function gitConfigProblem(
  git: string,
  cwd: string,
  depth = 0,
): Promise<string | undefined> {
  const whose =
    depth === 0 ? "the repository's own git config" : `the submodule ${cwd}'s git config`;
  const [listed, top, blobs] = await Promise.allSettled([
    readGit(git, ["config", "--list", "--show-scope", "-z"], cwd),
    readGit(git, ["rev-parse", "--show-toplevel"], cwd),
    readGit(git, ["cat-file", "--batch-check"], cwd, ":.gitmodules\nHEAD:.gitmodules\n"),
  ]);
  if (listed.status === "rejected") {
    return `git's configuration in ${cwd} could not be checked (${messageOf(listed.reason).slice(0, 200)})`;
  }
  for (const [scope, key, value] of entriesOf(listed.value, true)) {
    const problem =
      scope === "local" || scope === "worktree" ? keyProblem(key!, value!) : undefined;
    if (problem !== undefined) {
      return `${whose} ${problem}`;
    }
  }
  if (top.status === "rejected") {
    return undefined; // no work tree (a bare repository, inside .git): no submodule to open
  }
  const blob =
    blobs.status === "fulfilled" ? /^([0-9a-f]{40,64}) blob /m.exec(blobs.value)?.[1] : undefined;
  return submodulesProblem(git, top.value.replace(/\n$/, ""), blob, depth);
}

/**
 * What `.gitmodules` says, read where git reads it (the work tree's file, else the index's, else
 * HEAD's: `blob`, the first of those two that exists), as [key, value] pairs.
 */
async function gitmodulesOf(
  git: string,
  top: string,
  blob: string | undefined,
): Promise<string[][]> {
  const file = join(top, ".gitmodules");
  if (existsSync(file)) {
    return entriesOf(await readGit(git, ["config", "--file", file, "--list", "-z"], top), false);
  }
  if (blob === undefined) {
    return [];
  }
  return entriesOf(await readGit(git, ["config", "--blob", blob, "--list", "-z"], top), false);
}

/** Why a submodule of the repository at `top` must not pass (see gitConfigProblem), or undefined. */
async function submodulesProblem(
  git: string,
  top: string,
  blob: string | undefined,
  depth: number,
): Promise<string | undefined> {
  let entries: string[][];
  try {
    entries = await gitmodulesOf(git, top, blob);
  } catch (error) {
    return `the repository's .gitmodules could not be checked (${messageOf(error).slice(0, 200)})`;
  }
  const paths: string[] = [];
  for (const [key, value] of entries) {
    if (SUBMODULE_IGNORE.test(key!) && value!.toLowerCase() !== "all") {
      return `the repository's .gitmodules sets ${key} (${JSON.stringify(value!.slice(0, 100))}), which makes git open the submodule (its own config could run a program)`;
    }
    if (/^submodule\..*\.path$/i.test(key!)) {
      paths.push(value!);
    }
  }
  if (paths.length > MAX_SUBMODULES || (paths.length > 0 && depth >= MAX_SUBMODULE_DEPTH)) {
    return `the repository has more submodules than are checked (${MAX_SUBMODULES}, ${MAX_SUBMODULE_DEPTH} deep)`;
  }
  for (const path of paths) {
    const dir = join(top, path);
    if (existsSync(join(dir, ".git"))) {
      const problem = await gitConfigProblem(git, dir, depth + 1);
      if (problem !== undefined) {
        return problem;
      }
    }
  }
  return undefined;
}
