import { TerminalError } from "../core/errors.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { planCommand } from "../spawn/command.js";
import { authorizedLaunch } from "./authorized-launch.js";
import type { TerminalContainers } from "./containers.js";
import type { TypedEvents } from "./events.js";
import { launchTerminal, sessionCwdOf } from "./launch.js";
import type { ResolvedHostOptions } from "./options.js";
import type { TerminalRegistry } from "./terminal-registry.js";
import type { CreateTerminalParams, TerminalHostEvents, TerminalOwner } from "./types.js";
import { validateCreateParams, validateOwner } from "./validate.js";

export function disposedError(): TerminalError {
  return new TerminalError(
    "disposed",
    "The terminal host was disposed; its terminals were killed and released",
  );
}

/** The parts of a host a create goes through. */
export interface CreateParts {
  options: ResolvedHostOptions;
  sandbox: Sandbox;
  terminals: TerminalRegistry;
  containers: TerminalContainers;
  events: TypedEvents<TerminalHostEvents>;
  /** The shell for a command line that needs one (looked up once by the host). */
  shell: () => string;
  /** True once the host is being disposed: a create then fails "disposed", its process killed. */
  disposing: () => boolean;
}

/**
 * A create, in order: the owner and parameters validated, the cwd and command line planned, a
 * slot taken (or "limit_reached"), the authorize hook asked, the process spawned and contained,
 * the terminal registered and watched, the "create" event emitted. Resolves with its id; on any
 * failure the slot is given back.
 */
export async function createTerminal(
  host: CreateParts,
  ownerInput: TerminalOwner,
  paramsInput: CreateTerminalParams,
  context: { sessionCwd?: string } | undefined,
): Promise<string> {
  if (host.disposing()) {
    throw disposedError();
  }
  const { options, terminals } = host;
  const owner = validateOwner(ownerInput);
  const params = validateCreateParams(paramsInput);
  const sessionCwd = sessionCwdOf(context, options);
  const cwd = params.cwd ?? sessionCwd;
  const plan = planCommand(params.command, params.args, options.shell, host.shell);
  const freeSlot = terminals.reserve(owner);
  try {
    const { launch, command } = await authorizedLaunch(
      { owner, params, cwd, sessionCwd, plan },
      options,
      host.sandbox,
    );
    if (host.disposing()) {
      throw disposedError();
    }
    const terminal = await launchTerminal(
      launch,
      options,
      host.events,
      () => !host.disposing(),
      host.containers,
    );
    if (!terminal) {
      throw disposedError();
    }
    terminals.add(terminal, freeSlot, command);
    host.containers.watch(terminal.process);
    host.events.emit("create", { terminalId: terminal.id, info: terminal.info() });
    return terminal.id;
  } catch (error) {
    freeSlot();
    throw error;
  }
}
