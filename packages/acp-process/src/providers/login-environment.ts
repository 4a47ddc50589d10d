import { spawn } from "node:child_process";

/**
 * The user's login-shell environment (what nvm, pyenv, direnv, asdf... set up in the shell's
 * profile and rc files), snapshotted once by running `<shell> -l -i -c 'env -0'` and cached for
 * the process, so commands find the same `node` or `python` as in the user's terminal without
 * paying for a login shell each time. Variables that describe the snapshot shell itself and
 * secrets (see SCRUBBED_VARIABLES, SECRET_NAME) are left out.
 */
export interface LoginEnvironmentOptions {
  /** The shell to ask (default: `$SHELL`, else `bash`). */
  shell?: string;
  /** The environment the snapshot shell starts with (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Longest the snapshot may take (default 10000 ms); past it, commands run without it. */
  timeoutMs?: number;
}

/** The shell's own state, never copied: where it is, its level, its prompt and history, its terminal. */
export const SCRUBBED_VARIABLES: readonly string[] = [
  "PWD",
  "OLDPWD",
  "SHLVL",
  "_",
  "PS1",
  "PS2",
  "PS3",
  "PS4",
  "PROMPT_COMMAND",
  "HISTFILE",
  "HISTSIZE",
  "HISTFILESIZE",
  "HISTCONTROL",
  "COLUMNS",
  "LINES",
  "TERM",
  "TERM_PROGRAM",
  "TMUX",
  "STY",
  "SSH_TTY",
];

/**
 * Names of secrets, never copied from the snapshot (a profile that exports a token should not
 * hand it to every command an agent runs): any name with a part TOKEN, SECRET, PASSWORD, PASSWD,
 * PASSPHRASE, CREDENTIAL(S), PRIVATE_KEY, API_KEY, APIKEY, ACCESS_KEY, AUTH or SESSION_KEY, e.g.
 * GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY, NPM_TOKEN, DATABASE_PASSWORD.
 */
export const SECRET_NAME =
  /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|PRIVATE_KEY|API_?KEY|ACCESS_KEY|AUTH|SESSION_KEY)(?:_|$)/i;

const MARK = "__acp_process_login_env__";
const cache = new Map<string, Promise<Record<string, string> | null>>();

/**
 * The snapshot for these options, taken on the first call and cached (per shell and HOME); null
 * when it could not be taken (the shell failed, or took longer than `timeoutMs`).
 */
export function loginShellEnvironment(
  options: LoginEnvironmentOptions = {},
): Promise<Record<string, string> | null> {
  const env = options.env ?? process.env;
  const shell = options.shell ?? env.SHELL ?? "bash";
  const key = `${shell}\0${env.HOME ?? ""}`;
  let snapshot = cache.get(key);
  if (!snapshot) {
    snapshot = takeSnapshot(shell, env, options.timeoutMs ?? 10_000);
    cache.set(key, snapshot);
  }
  return snapshot;
}

function takeSnapshot(
  shell: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Record<string, string> | null> {
  return new Promise((resolve) => {
    // stdin is /dev/null: an interactive shell that reads it gets end-of-file, never a wait. The
    // mark separates the environment from whatever the profile prints.
    const child = spawn(shell, ["-l", "-i", "-c", `printf '\\0${MARK}\\0'; env -0`], {
      env,
      stdio: ["ignore", "pipe", "ignore"],
      detached: true,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      // An environment is at most a few MB (ARG_MAX); more is not one.
      if ((size += chunk.length) <= 16 * 1024 * 1024) {
        chunks.push(chunk);
      }
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // it ended meanwhile
      }
      resolve(null);
    }, timeoutMs);
    timer.unref();
    child.once("error", () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? parse(Buffer.concat(chunks).toString("utf8")) : null);
    });
  });
}

function parse(output: string): Record<string, string> | null {
  const start = output.indexOf(`\0${MARK}\0`);
  if (start < 0) {
    return null;
  }
  const env: Record<string, string> = {};
  for (const entry of output.slice(start + MARK.length + 2).split("\0")) {
    const equals = entry.indexOf("=");
    if (equals <= 0) {
      continue;
    }
    const name = entry.slice(0, equals);
    if (
      !SCRUBBED_VARIABLES.includes(name) &&
      !SECRET_NAME.test(name) &&
      !name.startsWith("BASH_FUNC_")
    ) {
      env[name] = entry.slice(equals + 1);
    }
  }
  return env;
}
