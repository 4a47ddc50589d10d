/**
 * Starting a command through the launcher (contain/launcher.ts), with pipes or a PTY: the same
 * SpawnedProcess the direct backends give, plus `tree`, the command's relay-held process tree,
 * which kill and release sweep after its process group. The command is forked from the launcher,
 * not from this (larger) process.
 *
 * Pipes: one pipe for stdout and stderr (merged in the order written, as on a terminal), stdin a
 * pipe when asked for, else /dev/null. PTY: node-pty's openpty gives the master here; the command
 * opens the slave by its path in a session of its own (its controlling terminal), and the host
 * closes its copy of the slave once the command runs, so the master reads end-of-file (EIO) when
 * the last process holding the terminal is gone.
 */
import { closeSync } from "node:fs";
import { Socket } from "node:net";
import type { Readable } from "node:stream";
import type { CommandLauncher, LaunchedCommand } from "./launch-port.js";
import { TerminalError } from "../core/errors.js";
import type { ExitStatus } from "../core/types.js";
import { spawnError } from "./errors.js";
import { inputClosed, PipeInput, PtyInput } from "./input.js";
import { readPipeFd, readPtyMaster } from "./pipe-reader.js";
import { DrainHold, drainAfterExit } from "./pipes.js";
import { checkProgram } from "./program.js";
import { loadPty } from "./pty.js";
import type { SpawnedProcess, SpawnRequest } from "./types.js";

/** node-pty's openpty and resize (its `native` export), where this node-pty has them. */
interface OpenPty {
  open(cols: number, rows: number): { master: number; slave: number; pty: string };
  resize(fd: number, cols: number, rows: number): void;
}

function openPtyOf(module: object): OpenPty | undefined {
  const native: unknown = "native" in module ? module.native : undefined;
  return typeof native === "object" &&
    native !== null &&
    "open" in native &&
    typeof native.open === "function" &&
    "resize" in native &&
    typeof native.resize === "function"
    ? // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- node-pty's native binding (undeclared in its types), both functions checked above
      (native as OpenPty)
    : undefined;
}

/** Whether PTYs can be started through the launcher (node-pty loads and exposes openpty). */
export function launchedPtyAvailable(): boolean {
  try {
    return openPtyOf(loadPty()) !== undefined;
  } catch {
    return false; // node-pty does not load: PTYs are unavailable anyway
  }
}

/**
 * The file to execute. The launched command's exec reports a missing or unrunnable program itself
 * (its errno comes back as the start's failure), searching the command's PATH as the shell does;
 * only without a PATH is it looked up here, on the default search path (see program.ts).
 */
function programOf(request: SpawnRequest): string {
  return request.env.PATH === undefined
    ? checkProgram(request.file, request.cwd, undefined)
    : request.file;
}

const noStdin = (): TerminalError =>
  inputClosed("the terminal was created without stdin; pass stdin: true to create to write to it");

/** Starts `request` through `launcher`. */
export async function spawnLaunched(
  request: SpawnRequest,
  launcher: CommandLauncher,
): Promise<SpawnedProcess> {
  return request.pty
    ? spawnLaunchedPty(request, request.pty, launcher)
    : spawnLaunchedPipes(request, launcher);
}

async function launch(
  launcher: CommandLauncher,
  request: SpawnRequest,
  extra: { file: string; tty?: string; env?: Record<string, string> },
): Promise<LaunchedCommand> {
  // A prefix (the sandbox's bwrap) runs first and is handed the command, as the direct backends do.
  const [file = extra.file, ...prefixArgs] = request.prefix ?? [];
  const args = request.prefix?.length ? [...prefixArgs, extra.file, ...request.args] : request.args;
  try {
    return await launcher.launch({
      file,
      args,
      cwd: request.cwd,
      env: extra.env ?? request.env,
      stdin: request.stdin && extra.tty === undefined,
      ...(extra.tty === undefined ? {} : { tty: extra.tty }),
    });
  } catch (error) {
    throw spawnError(request.file, error);
  }
}

async function spawnLaunchedPipes(
  request: SpawnRequest,
  launcher: CommandLauncher,
): Promise<SpawnedProcess> {
  // The callbacks below live as long as the terminal: they must not close over `request`.
  const { onData: deliver, exitDrainGraceMs, signal, maxPendingStdinBytes } = request;
  const command = await launch(launcher, request, { file: programOf(request) });
  let bytesRead = 0;
  const output = readPipeFd(command.outputFd ?? -1, (chunk) => {
    bytesRead += chunk.byteLength;
    deliver(chunk);
  });
  output.on("error", () => {}); // a read error ends the stream; the drain handles 'close'
  const input =
    command.inputFd === undefined
      ? undefined
      : new PipeInput(
          new Socket({ fd: command.inputFd, readable: false, writable: true }),
          maxPendingStdinBytes,
        );
  const drainHold = new DrainHold();
  return settle(
    command,
    output,
    drainHold,
    { exitDrainGraceMs, signal, bytesRead: () => bytesRead },
    {
      pty: false,
      get writable() {
        return input?.writable ?? false;
      },
      write: (data) => (input ? input.write(data) : Promise.reject(noStdin())),
      endInput: (data) => (input ? input.endInput(data) : Promise.reject(noStdin())),
      closeInput: () => input?.close(),
      resize: () => {
        throw new Error("resize of a pipe terminal");
      },
    },
  );
}

async function spawnLaunchedPty(
  request: SpawnRequest,
  size: { cols: number; rows: number },
  launcher: CommandLauncher,
): Promise<SpawnedProcess> {
  const { onData: deliver, exitDrainGraceMs, signal, maxPendingStdinBytes } = request;
  const module = loadPty();
  const openPty = openPtyOf(module);
  if (!openPty) {
    throw new TerminalError("spawn_failed", "PTY support is unavailable: node-pty has no openpty");
  }
  const file = programOf(request);
  const pair = openPty.open(size.cols, size.rows);
  let command: LaunchedCommand;
  try {
    // As node-pty sets them for a command it forks.
    const env = { ...request.env, TERM: request.env.TERM ?? "xterm-256color", PWD: request.cwd };
    command = await launch(launcher, request, { file, tty: pair.pty, env });
  } catch (error) {
    closeSync(pair.master);
    throw error;
  } finally {
    closeSync(pair.slave); // the command has its own (it opened the slave before its exec)
  }
  let bytesRead = 0;
  const master = readPtyMaster(pair.master, (chunk) => {
    bytesRead += chunk.byteLength;
    deliver(chunk);
  });
  master.on("error", () => {}); // EIO once nothing holds the terminal: its end, 'close' follows
  const input = new PtyInput(pair.master, maxPendingStdinBytes, signal);
  return settle(
    command,
    master,
    new DrainHold(),
    { exitDrainGraceMs, signal, bytesRead: () => bytesRead },
    {
      pty: true,
      get writable() {
        return input.writable;
      },
      write: (data) => input.write(data),
      endInput: (data) => input.endInput(data),
      closeInput: () => input.close(),
      resize: (cols, rows) => openPty.resize(pair.master, cols, rows),
    },
  );
}

interface Io {
  pty: boolean;
  readonly writable: boolean;
  write(data: Uint8Array): Promise<void>;
  endInput(data?: Uint8Array): Promise<void>;
  closeInput(): void;
  resize(cols: number, rows: number): void;
}

/** The SpawnedProcess: exit from the launcher's report, then the output drained as pipes.ts does. */
function settle(
  command: LaunchedCommand,
  output: Readable,
  drainHold: DrainHold,
  drain: { exitDrainGraceMs: number; signal: AbortSignal; bytesRead: () => number },
  io: Io,
): SpawnedProcess {
  let exitStatus: ExitStatus | undefined;
  const leaderExited = command.exited.then((status) => (exitStatus = status));
  const settled = (async () => {
    const status = await leaderExited;
    const drained = await drainAfterExit(
      [output],
      drain.exitDrainGraceMs,
      drain.signal,
      drain.bytesRead,
      drainHold.current,
    );
    if (!drained) {
      output.destroy(); // a background process still holds it: stop reading
    }
    io.closeInput();
    return status;
  })();
  return {
    pid: command.pid,
    pty: io.pty,
    leaderExited,
    settled,
    tree: command,
    hasExited: () => exitStatus !== undefined,
    get writable() {
      return io.writable;
    },
    write: (data) => io.write(data),
    endInput: (data) => io.endInput(data),
    holdDrainUntil: (done) => drainHold.until(done),
    resize: (cols, rows) => io.resize(cols, rows),
  };
}
