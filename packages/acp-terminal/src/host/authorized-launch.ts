import { TerminalError } from "../core/errors.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { CommandPlan } from "../spawn/command.js";
import { commandEnvironment, hostBaseEnvironment } from "../spawn/env.js";
import { resolvePlan } from "../spawn/resolve-program.js";
import { authorizeAction } from "./authorize.js";
import type { Launch } from "./launch.js";
import type { ResolvedHostOptions } from "./options.js";
import type { AuthorizeCommand, TerminalOwner } from "./types.js";
import type { ValidCreateParams } from "./validate.js";

/** A validated create: for whom, what the request asked, where, and the plan for its command line. */
export interface CreateRequest {
  owner: TerminalOwner;
  params: ValidCreateParams;
  cwd: string;
  /** The session's cwd, else the host's: where allow rules apply. */
  sessionCwd: string;
  plan: CommandPlan;
}

/**
 * What a create runs, found out and put to the authorize hook: its environment, the program its
 * plan resolves to, the sandbox's prefix. Resolves once the hook allows it, with the Launch (its
 * environment holding the variables a grant added, its prefix the confined sandbox's when the
 * grant says so) and the command as the hook was shown it (shown again for the terminal's writes
 * and signals).
 */
export async function authorizedLaunch(
  { owner, params, cwd, sessionCwd, plan }: CreateRequest,
  options: ResolvedHostOptions,
  sandbox: Sandbox,
): Promise<{ launch: Launch; command: AuthorizeCommand }> {
  // Elsewhere (options.on), the request's variables go on top of that machine's environment,
  // and the program cannot be resolved here: no allow pattern matches it.
  const remote = options.executor !== undefined;
  const base = remote ? {} : hostBaseEnvironment(options.env);
  const env = commandEnvironment(base, params.env);
  const sandboxPrefix = sandbox.prefixFor(cwd);
  const command: AuthorizeCommand = {
    owner,
    command: params.command,
    args: params.args ?? [],
    cwd,
    shell: plan.shell,
    env: (params.env ?? []).map(({ name, value }) => ({ name, value })),
    ...(remote
      ? { program: null, argv: [plan.file, ...plan.args] }
      : resolvePlan(plan, cwd, env.PATH)),
    sandbox: sandbox.mode,
    sessionCwd,
  };
  const granted = await authorizeAction(options.authorize, { action: "create", ...command });
  for (const { name, value } of granted.env) {
    env[name] = value;
  }
  const prefix = granted.confined
    ? confinedPrefix(sandbox, cwd, sessionCwd, remote)
    : sandboxPrefix;
  return { launch: { owner, params, plan, cwd, env, sandboxPrefix: prefix }, command };
}

/** The words of the confined sandbox a grant asked for; a command run elsewhere cannot have it. */
function confinedPrefix(
  sandbox: Sandbox,
  cwd: string,
  sessionCwd: string,
  remote: boolean,
): readonly string[] {
  if (remote) {
    throw new TerminalError(
      "spawn_failed",
      "Not started: it was approved to run confined (in a read-only sandbox), and it runs on another machine, where this host cannot confine it",
      { sandbox: "read-only" },
    );
  }
  return sandbox.confinedPrefixFor(cwd, sessionCwd);
}
