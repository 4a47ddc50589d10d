import { spawn } from "node:child_process";
import type { TerminalLogin } from "./failure-messages.js";

/** A word quoted for the shell the agent's command line runs in. */
const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/** The line a terminal login runs: the agent's command line, then the method's arguments quoted. */
export function loginLine(commandLine: string, login: TerminalLogin): string {
  return [commandLine, ...login.args.map(quote)].join(" ");
}

/**
 * Runs an agent's terminal login (an auth method of `type: "terminal"`): the agent's own command
 * line with the method's arguments and variables, in the user's terminal (stdio inherited), as
 * the method asks; exit 0 means logged in. Resolves with the line that says why it failed, or
 * undefined. Without a TTY there is no one to log in: it is not run.
 */
export async function runTerminalLogin(
  commandLine: string,
  login: TerminalLogin,
  where: { cwd: string; env: NodeJS.ProcessEnv; tty: boolean },
): Promise<string | undefined> {
  const line = loginLine(commandLine, login);
  if (!where.tty) {
    return `--auth ${login.methodId} is a login that runs in a terminal: run acp-terminal on one (it would run: ${line})`;
  }
  process.stderr.write(`acp-terminal: logging in (--auth ${login.methodId}): ${line}\n`);
  const child = spawn(line, {
    shell: true,
    cwd: where.cwd,
    env: { ...where.env, ...login.env },
    stdio: "inherit",
  });
  const exit = await new Promise<{ code: number | null; signal: string | null; error?: Error }>(
    (resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", (error) => resolve({ code: null, signal: null, error }));
    },
  );
  if (exit.code === 0) {
    return undefined;
  }
  const how =
    exit.error !== undefined
      ? `could not start (${exit.error.message})`
      : exit.signal !== null
        ? `was killed by ${exit.signal}`
        : `exited with code ${exit.code}`;
  return `--auth ${login.methodId}: the terminal login ${how}: ${line}`;
}
