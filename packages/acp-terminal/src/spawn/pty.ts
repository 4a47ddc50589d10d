import { createRequire } from "node:module";
import type { IPty } from "node-pty";
import { TerminalError } from "../core/errors.js";
import type { ExitStatus } from "../core/types.js";
import { signalNameOf } from "../terminate/signals.js";
import { spawnError } from "./errors.js";
import { PtyInput } from "./input.js";
import { checkProgram } from "./program.js";
import type { SpawnedProcess, SpawnRequest } from "./types.js";
import { errnoCodeOf, messageOf } from "../core/thrown.js";

type PtyModule = typeof import("node-pty");
const requireModule = createRequire(import.meta.url);
let ptyModule: PtyModule | undefined;

/**
 * node-pty is native and an optional peer dependency: loaded on the first PTY terminal (or the
 * first `ptyAvailable()`), so pipes work where it is not installed or failed to build. A failed
 * load is tried again next time.
 */
export function loadPty(): PtyModule {
  try {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- node-pty loaded with require() for a clear error when it is missing; PtyModule is its type
    ptyModule ??= requireModule("node-pty") as PtyModule;
    return ptyModule;
  } catch (error) {
    throw new TerminalError("spawn_failed", ptyLoadFailure(error), undefined, { cause: error });
  }
}

function ptyLoadFailure(error: unknown): string {
  const notInstalled =
    errnoCodeOf(error) === "MODULE_NOT_FOUND" && messageOf(error).includes("'node-pty'");
  return notInstalled
    ? "PTY terminals need the optional package node-pty, which is not installed: install it next to acp-terminal (npm install node-pty; on Linux it builds from source, which needs a C++ compiler, make and python), or run without a PTY."
    : `PTY terminals need node-pty, which is installed but failed to load (${messageOf(error)}): rebuild it for this Node (npm rebuild node-pty), or run without a PTY.`;
}

/** Whether PTY terminals can be opened here: node-pty loads. */
export function ptyAvailable(): boolean {
  try {
    loadPty();
    return true;
  } catch {
    return false; // the reason is reported by the create that asks for a PTY
  }
}

function exitStatusOf(event: { exitCode: number; signal?: number }): ExitStatus {
  return event.signal
    ? { exitCode: null, signal: signalNameOf(event.signal) }
    : { exitCode: event.exitCode, signal: null };
}

/**
 * Starts a command in a PTY. node-pty makes the child a session (and process-group) leader, and
 * reports exit only after the PTY's output has been read to the end (or 200 ms after the exit
 * when a background process keeps the terminal open), so exit and drain arrive together.
 */
export async function spawnWithPty(
  request: SpawnRequest & { pty: { cols: number; rows: number } },
): Promise<SpawnedProcess> {
  const { onData: deliver } = request; // not `request` itself: it would keep the env alive (see pipes.ts)
  const pty = loadPty();
  const file = checkProgram(request.file, request.cwd, request.env.PATH);
  let terminal: IPty;
  try {
    const [program = file, ...args] = [...(request.prefix ?? []), file, ...request.args];
    terminal = pty.spawn(program, args, {
      name: request.env.TERM ?? "xterm-256color",
      cols: request.pty.cols,
      rows: request.pty.rows,
      cwd: request.cwd,
      env: request.env,
      encoding: null,
    });
  } catch (error) {
    throw spawnError(request.file, error);
  }
  const dataSubscription = terminal.onData((data: string | Buffer) => {
    deliver(typeof data === "string" ? Buffer.from(data) : data);
  });
  let exitStatus: ExitStatus | undefined;
  const leaderExited = new Promise<ExitStatus>((resolve) => {
    const exitSubscription = terminal.onExit((event) => {
      exitStatus = exitStatusOf(event);
      dataSubscription.dispose();
      exitSubscription.dispose();
      resolve(exitStatus);
    });
  });
  // node-pty's IPty does not declare `fd`; its Unix terminal has one.
  const fd = "fd" in terminal ? terminal.fd : undefined;
  if (typeof fd !== "number") {
    terminal.kill("SIGKILL");
    throw new TerminalError(
      "spawn_failed",
      "PTY support is unavailable: node-pty gave no terminal file descriptor",
    );
  }
  const input = new PtyInput(fd, request.maxPendingStdinBytes, request.signal);
  const settled = leaderExited.then((status) => {
    input.close();
    return status;
  });
  return {
    pid: terminal.pid,
    pty: true,
    leaderExited,
    settled,
    hasExited: () => exitStatus !== undefined,
    get writable() {
      return input.writable;
    },
    write: (data) => input.write(data),
    endInput: (data) => input.endInput(data),
    holdDrainUntil: () => {}, // node-pty ends the output itself (see above)
    resize: (cols, rows) => terminal.resize(cols, rows),
  };
}
