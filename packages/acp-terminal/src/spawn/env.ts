import { delimiter, isAbsolute } from "node:path";
import { describeReceived, TerminalError } from "../core/errors.js";
import type { BaseEnvironment, EnvVariable } from "../core/types.js";
import { messageOf } from "../core/thrown.js";

/**
 * Set for every command unless the base environment or the request sets them: no pager waits;
 * and `SHLVL`, because bash with a socket on stdin (Node's stdin pipe is a socket pair) and a
 * shell level under 2 takes itself for a remote shell and sources ~/.bashrc, whose `pyenv init`
 * or prompt setup can hold the command up (bash counts `SHLVL=1` as level 2 inside).
 */
const NON_INTERACTIVE_DEFAULTS: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  SHLVL: "1",
};

/** A copy of `env` (`process.env`: read once per key, without an array per entry). */
function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in env) {
    const value = env[name];
    if (value !== undefined) {
      out[name] = value;
    }
  }
  return out;
}

/** The base environment an option selects; a function's result is checked by the host options. */
function baseEnvironment(option: BaseEnvironment): Record<string, string> {
  if (option === "empty") {
    return {};
  }
  if (typeof option === "function") {
    const env: unknown = option({ ...process.env });
    if (typeof env !== "object" || env === null) {
      throw new TypeError(`it must return an object of strings, returned ${String(env)}`);
    }
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- each value is checked to be a string where the host options are checked
    return { ...(env as Record<string, string>) };
  }
  return definedOnly(process.env);
}

/**
 * The base environment for a command, with the result of an `env` function checked. What goes
 * wrong here is the host's configuration, not the agent's request: a `spawn_failed` that names
 * the host option (never `invalid_params`, which would blame the agent's params).
 */
export function hostBaseEnvironment(option: BaseEnvironment): Record<string, string> {
  const fail = (problem: string, cause?: unknown): never => {
    throw new TerminalError(
      "spawn_failed",
      `The host's env option failed: ${problem}. This is the client's TerminalHost configuration ` +
        "(options.env), not the request; fix it where the host is created",
      { option: "options.env" },
      { cause },
    );
  };
  let base: Record<string, string> = {};
  try {
    base = baseEnvironment(option);
  } catch (error) {
    fail(`options.env(base) threw: ${messageOf(error)}`, error);
  }
  if (typeof option !== "function") {
    return base; // process.env's values, or none: strings
  }
  for (const name in base) {
    const value: unknown = base[name];
    if (typeof value !== "string") {
      fail(`options.env(base) returned ${describeReceived(value)} for ${name}, not a string`);
    }
  }
  return base;
}

/**
 * An inherited `SHLVL` that is not a whole number of at least 1 (`0`, `-1`, `abc`, empty) is
 * taken as unset: bash at such a level with a socket on stdin would source ~/.bashrc, as at level 0
 * (a server started from a login shell's `exec` inherits `SHLVL=0`: every command then ran
 * 90-1000 ms slower).
 */
function usableShellLevel(value: string | undefined): boolean {
  return value !== undefined && /^\d+$/.test(value.trim()) && Number(value) >= 1;
}

/**
 * `PATH` without its entries that are not absolute: an empty entry or `.` makes a name mean a file
 * in whichever directory the command runs in, one the agent chooses (an approved `ls` would run
 * `./ls`). Undefined stays undefined.
 */
export function absolutePathEntries(path: string | undefined): string | undefined {
  return path
    ?.split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .join(delimiter);
}

/**
 * The base, then the request's variables on top (later ones win), then the pager defaults. An
 * unusable inherited `SHLVL` is dropped first (see `usableShellLevel`); one the request sets is
 * kept as given. `PATH` keeps only its absolute entries (see absolutePathEntries).
 */
export function commandEnvironment(
  base: Record<string, string>,
  requested: readonly EnvVariable[] | null | undefined,
): Record<string, string> {
  const env = { ...base };
  if (!usableShellLevel(env.SHLVL)) {
    delete env.SHLVL;
  }
  for (const { name, value } of requested ?? []) {
    env[name] = value;
  }
  for (const [name, value] of Object.entries(NON_INTERACTIVE_DEFAULTS)) {
    env[name] ??= value;
  }
  if (env.PATH !== undefined) {
    env.PATH = absolutePathEntries(env.PATH)!;
  }
  return env;
}
