import { randomUUID } from "node:crypto";
import type { Launcher } from "../contain/launcher.js";
import type { PidNamespace } from "../contain/pid-namespace.js";
import { OutputBuffer } from "../output/output-buffer.js";
import type { CommandPlan } from "../spawn/command.js";
import { processGroupOf } from "../executors/local.js";
import { closeInheritedPrefix } from "../spawn/inherited-fds.js";
import { spawnProcess } from "../spawn/spawn.js";
import type { ExecutedProcess } from "../executors/types.js";
import type { TypedEvents } from "./events.js";
import type { ResolvedHostOptions } from "./options.js";
import { Terminal } from "./terminal.js";
import type { TerminalHostEvents, TerminalOwner, TerminalWrittenEvent } from "./types.js";

const NO_BYTES = new Uint8Array(0);
import { absolutePath, DEFAULT_PTY_SIZE, type ValidCreateParams } from "./validate.js";

/** A create that was validated and authorized: what to run, where, and for whom. */
export interface Launch {
  owner: TerminalOwner;
  params: ValidCreateParams;
  plan: CommandPlan;
  cwd: string;
  /** The command's whole environment (commandEnvironment). */
  env: Record<string, string>;
  /** Words that put the command in the host's sandbox (sandbox/), empty without one. */
  sandboxPrefix: readonly string[];
}

/** Notices a terminal keeps (see `TerminalOutputSnapshot.notices`); later ones are only emitted. */
const MAX_TERMINAL_NOTICES = 8;

/** The session's cwd (from the embedding client), else the host's, else ours. */
export function sessionCwdOf(
  context: { sessionCwd?: string } | undefined,
  options: ResolvedHostOptions,
): string {
  const sessionCwd =
    context?.sessionCwd === undefined || context.sessionCwd === null
      ? undefined
      : absolutePath("context.sessionCwd", context.sessionCwd);
  return sessionCwd ?? options.cwd ?? process.cwd();
}

/** How a terminal is contained: a PID namespace if one is given, else the launcher if one runs. */
export interface Containers {
  namespaces?: { take(): Promise<PidNamespace | undefined>; refill(): void } | undefined;
  /** The launcher to start a command through (`pty`: a PTY terminal), or undefined. */
  launcher?: ((pty: boolean) => Launcher | undefined) | undefined;
}

/**
 * Spawns an authorized create and wraps it in a Terminal whose output and exit reach `events`:
 * in a PID namespace of its own when `containers` has one, else through the launcher (its whole
 * process tree held), else forked here (its group only). `stillWanted` is asked once the process
 * has spawned: when it says no (the host is being disposed), the process is killed with its group
 * and `undefined` returned.
 */
export async function launchTerminal(
  launch: Launch,
  options: ResolvedHostOptions,
  events: TypedEvents<TerminalHostEvents>,
  stillWanted: () => boolean,
  containers: Containers = {},
): Promise<Terminal | undefined> {
  const { owner, params, plan, cwd, env } = launch;
  const pty =
    params.pty === undefined ? (options.pty ? { ...DEFAULT_PTY_SIZE } : false) : params.pty;
  const outputByteLimit = Math.min(
    params.outputByteLimit ?? options.defaultOutputByteLimit,
    options.maxOutputByteLimit,
  );
  const terminalId = randomUUID();
  const buffer = new OutputBuffer(outputByteLimit);
  const controller = new AbortController();
  const { namespaces } = containers;
  const namespace = await namespaces?.take();
  // Commands run elsewhere (options.executor) are contained there, by the executor.
  const launcher = namespace || options.executor ? undefined : containers.launcher?.(pty !== false);
  // What this process inherited (an fd its parent left open) the launcher closes at its start; a
  // command forked here closes it first. Then the namespace (nsenter), the sandbox (bwrap), the command.
  const closer = launcher || options.executor ? [] : closeInheritedPrefix();
  const prefix = [...closer, ...(namespace?.prefix ?? []), ...launch.sandboxPrefix];
  // One `written` event object for every chunk of this terminal (a flood is thousands of them).
  const written: TerminalWrittenEvent = { terminalId, owner, totalBytes: 0, data: NO_BYTES };
  const appendOutput = (chunk: Uint8Array): void => {
    buffer.append(chunk);
    // The chunk is the backend's reused read buffer: listeners get a copy of their own.
    if (events.has("output")) {
      events.emit("output", { terminalId, owner, data: Buffer.from(chunk) });
    }
    if (events.has("written")) {
      written.totalBytes = buffer.totalBytes;
      written.data = chunk;
      events.emit("written", written);
    }
  };
  const notices: string[] = [];
  const onNotice = (text: string): void => {
    if (notices.length < MAX_TERMINAL_NOTICES) {
      notices.push(text);
    }
    events.emit("notice", { terminalId, owner, text });
  };
  const request = {
    file: plan.file,
    args: plan.args,
    ...(prefix.length > 0 ? { prefix } : {}),
    cwd,
    env,
    stdin: params.stdin,
    ...(pty ? { pty } : {}),
    exitDrainGraceMs: options.exitDrainGraceMs,
    maxPendingStdinBytes: options.maxPendingStdinBytes,
    onData: appendOutput,
    onNotice,
    signal: controller.signal,
    shell: plan.shell,
    requestEnv: env,
    session: owner,
  };
  const spawning = options.executor
    ? options.executor.spawn(request)
    : spawnProcess(request, launcher);
  const spawned = await spawning.catch((error: unknown) => {
    namespace?.end();
    throw error;
  });
  namespaces?.refill();
  if (!stillWanted()) {
    await abandon(spawned, controller, namespace);
    return undefined;
  }
  return new Terminal({
    id: terminalId,
    owner,
    command: params.command,
    args: params.args ?? [],
    argsGiven: params.args !== undefined,
    plan,
    env: params.env,
    outputByteLimit,
    cwd,
    buffer,
    notices,
    onNotice,
    controller,
    process: spawned,
    namespace,
    appendOutput,
    ...(pty ? { ptySize: pty } : {}),
    killGraceMs: options.killGraceMs,
    onExit: (exitStatus) =>
      events.emit("exit", { terminalId, owner, exitStatus: { ...exitStatus } }),
  });
}

/** A process that spawned after dispose() began: killed with its group, never registered. */
async function abandon(
  spawned: ExecutedProcess,
  controller: AbortController,
  namespace: PidNamespace | undefined,
): Promise<void> {
  try {
    await processGroupOf(spawned).terminate({ signal: "SIGKILL", graceMs: 0 });
    namespace?.end();
    await spawned.settled;
  } finally {
    processGroupOf(spawned).release?.();
    namespace?.end();
    controller.abort();
  }
}
