import { TerminalError } from "../core/errors.js";
import type { ApprovalRequest, AuthorizeRequest, AuthorizeVerdict, EnvVariable } from "./types.js";
import { messageOf } from "../core/thrown.js";

export type AuthorizeHook = (
  request: AuthorizeRequest,
) => Promise<AuthorizeVerdict> | AuthorizeVerdict;

/** `git commit -m 'a b'`: the command line as a person would type it, for messages. */
export function displayCommand(command: string, args: readonly string[]): string {
  const quote = (word: string): string =>
    /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
  return args.length > 0 ? [command, ...args].map(quote).join(" ") : command;
}

/** What is being authorized, in words: `rm -rf x`, `a 5-byte write to the stdin of cat`. */
export function describeAction(request: ApprovalRequest): string {
  if (request.action === "write_file") {
    const what = request.exists ? "replacing the file" : "a new file";
    return `${request.path} (${request.byteLength} bytes, ${what})`;
  }
  const command = displayCommand(request.command, request.args);
  switch (request.action) {
    case "create":
      return command;
    case "write":
      return `a ${request.data.byteLength}-byte write${request.eof ? " and end of input" : ""} to the stdin of ${command}`;
    case "signal":
      return `${request.signal} to ${command}`;
  }
}

/** Characters of the command an error names: the reason after it must survive a bounded error. */
const MAX_NAMED_CHARS = 300;

function cut(what: string): string {
  return what.length > MAX_NAMED_CHARS
    ? `${what.slice(0, MAX_NAMED_CHARS)}… (${what.length} chars)`
    : what;
}

/** What an allowed request runs with: variables added, and whether it runs confined. */
export interface Granted {
  env: readonly EnvVariable[];
  confined: boolean;
}

const PLAIN: Granted = { env: [], confined: false };

/** A grant's variables, checked: undefined when one is not a `{name, value}` of strings. */
function variablesOf(env: unknown): EnvVariable[] | undefined {
  if (env === undefined) {
    return [];
  }
  if (!Array.isArray(env)) {
    return undefined;
  }
  const variables: EnvVariable[] = [];
  for (const item of env) {
    const entry: unknown = item;
    const field = (key: string): unknown =>
      typeof entry === "object" && entry !== null ? Reflect.get(entry, key) : undefined;
    const name = field("name");
    const value = field("value");
    if (
      typeof name !== "string" ||
      typeof value !== "string" ||
      name === "" ||
      name.includes("=")
    ) {
      return undefined;
    }
    variables.push({ name, value });
  }
  return variables;
}

/** A grant (only a create's; anything else in its shape denies): its variables and confinement. */
function granted(verdict: unknown, action: ApprovalRequest["action"]): Granted | undefined {
  if (typeof verdict !== "object" || verdict === null || action !== "create") {
    return undefined;
  }
  const confined: unknown = Reflect.get(verdict, "confined");
  if (Reflect.get(verdict, "allow") !== true || (confined !== undefined && confined !== true)) {
    return undefined;
  }
  const env = variablesOf(Reflect.get(verdict, "env"));
  return env === undefined ? undefined : { env, confined: confined === true };
}

/**
 * Asks the hook; only `true` allows. `false` or a reason string is "Denied by the user: <what>
 * (<reason>)"; a hook that throws denies too, saying so. No hook allows. Resolves with what a
 * grant adds to a create: variables for its environment, and whether it runs confined.
 */
export async function authorizeAction<Request extends ApprovalRequest>(
  hook: ((request: Request) => Promise<AuthorizeVerdict> | AuthorizeVerdict) | undefined,
  request: Request,
): Promise<Granted> {
  if (!hook) {
    return PLAIN;
  }
  const what = cut(describeAction(request));
  const data =
    request.action === "write_file"
      ? { path: request.path }
      : request.action === "create"
        ? { command: request.command }
        : { command: request.command, terminalId: request.terminalId };
  let verdict: unknown;
  try {
    verdict = await hook(request);
  } catch (error) {
    const reason = messageOf(error);
    throw new TerminalError(
      "denied",
      `Denied: the authorize hook failed for ${what}: ${reason}`,
      data,
      { cause: error },
    );
  }
  if (verdict === true) {
    return PLAIN;
  }
  const grant = granted(verdict, request.action);
  if (grant !== undefined) {
    return grant;
  }
  const reason = typeof verdict === "string" && verdict.length > 0 ? ` (${verdict})` : "";
  throw new TerminalError("denied", `Denied by the user: ${what}${reason}`, data);
}
