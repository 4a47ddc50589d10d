import { approvalQuestion, type AuthorizeRequest } from "acp-terminal/approval";
import { choose } from "./choose.js";

/** The login as acp-terminal/approval words a command: what runs, by which shell, where, and every variable the agent set. */
function loginQuestion(
  methodId: string,
  line: string,
  env: Record<string, string>,
  cwd: string,
): string {
  const request: AuthorizeRequest = {
    action: "create",
    owner: { connectionId: "login", sessionId: methodId },
    command: line,
    args: [],
    cwd,
    shell: true,
    env: Object.entries(env).map(([name, value]) => ({ name, value })),
    program: null,
    argv: ["/bin/sh", "-c", line],
    sandbox: "off",
    sessionCwd: cwd,
  };
  return approvalQuestion(request, `The agent's terminal login (--auth ${methodId}) wants to`);
}

/**
 * Shows a terminal login (an auth method the agent lists: its command line, arguments and the
 * variables it sets, which can change what runs: `NODE_OPTIONS`, `LD_PRELOAD`) before it runs in
 * the user's terminal: with `--yes` as a notice, else as a question on the TTY (Enter does not run
 * it). Resolves with why it does not run, or undefined. Without a TTY nothing is shown: the login
 * is not run (terminal-login.ts says so).
 */
export async function approveTerminalLogin(
  login: { methodId: string; line: string; env: Record<string, string> },
  where: {
    yes: boolean;
    cwd: string;
    stdin: NodeJS.ReadableStream & { isTTY?: boolean };
    stderr: NodeJS.WritableStream;
  },
): Promise<string | undefined> {
  if (where.stdin.isTTY !== true) {
    return undefined;
  }
  const question = loginQuestion(login.methodId, login.line, login.env, where.cwd);
  if (where.yes) {
    where.stderr.write(`${question}\n(--yes: it runs)\n`);
    return undefined;
  }
  const picked = await choose(
    { input: where.stdin, output: where.stderr, signal: new AbortController().signal },
    question,
    ["Run it", "Do not run it"],
    { index: 1, verb: "does not run it" },
  );
  // The login reads the terminal itself: this process stops reading it until the next question.
  where.stdin.pause();
  return picked === 0
    ? undefined
    : `--auth ${login.methodId}: the terminal login was not run (not approved)`;
}
