import { TerminalError } from "./errors.js";
import type { AuthorizeRequest } from "./types.js";

export type AuthorizeHook = (request: AuthorizeRequest) => Promise<boolean | string> | boolean | string;

/** `git commit -m 'a b'`: the command line as a person would type it, for messages. */
export function displayCommand(command: string, args: readonly string[]): string {
  const quote = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
  return args.length > 0 ? [command, ...args].map(quote).join(" ") : command;
}

/**
 * Asks the hook; only `true` allows. `false` or a reason string is "Denied by the user: <command>
 * (<reason>)"; a hook that throws denies too, saying so.
 */
export async function authorizeCreate(hook: AuthorizeHook | undefined, request: AuthorizeRequest): Promise<void> {
  if (!hook) return;
  const command = displayCommand(request.command, request.args);
  let verdict: unknown;
  try {
    verdict = await hook(request);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TerminalError("denied", `Denied: the authorize hook failed for ${command}: ${reason}`, { command: request.command }, {
      cause: error,
    });
  }
  if (verdict === true) return;
  const reason = typeof verdict === "string" && verdict.length > 0 ? ` (${verdict})` : "";
  throw new TerminalError("denied", `Denied by the user: ${command}${reason}`, { command: request.command });
}
