import { spawn } from "node:child_process";
import { once } from "node:events";
import { homedir } from "node:os";
import type { Readable } from "node:stream";
import { TerminalError } from "../core/errors.js";
import { messageOf } from "../core/thrown.js";
import { inputClosed, PipeInput } from "../spawn/input.js";
import { readPipe } from "../spawn/pipe-reader.js";
import { spawnWithPty } from "../spawn/pty.js";
import { TailText } from "./tail-text.js";

/**
 * The process on this machine that carries one remote terminal's session: `ssh` through the
 * connection's master, or `docker exec`. With pipes its stdout is the command's merged output and
 * its stderr is kept for error messages; with a PTY it runs in a local PTY (node-pty), whose size
 * `ssh -tt` and `docker exec -t` forward to the remote PTY, resizes included.
 */
export interface LocalClient {
  readonly pid: number;
  /** Resolves when the client has exited and its output was read to the end. */
  readonly ended: Promise<void>;
  readonly writable: boolean;
  write(data: Uint8Array): Promise<void>;
  endInput(data?: Uint8Array): Promise<void>;
  resize(cols: number, rows: number): void;
  /** What the client said on stderr (pipes; a PTY client's messages are in the output). */
  said(): string;
  /** Stops reading its output and ends it (SIGTERM to the client only, never the remote group). */
  stop(): void;
  bytesRead(): number;
}

export interface LocalClientRequest {
  argv: string[];
  /** Keep stdin open for writes (pipes; a PTY is always writable). */
  stdin: boolean;
  pty?: { cols: number; rows: number } | undefined;
  term: string;
  maxPendingStdinBytes: number;
  exitDrainGraceMs: number;
  onData: (chunk: Uint8Array) => void;
  signal: AbortSignal;
}

/** The client's environment is this machine's: ssh needs HOME, SSH_AUTH_SOCK; docker DOCKER_HOST. */
function clientEnv(term: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      env[name] = value;
    }
  }
  env.TERM = term;
  return env;
}

export async function startLocalClient(request: LocalClientRequest): Promise<LocalClient> {
  let bytes = 0;
  const counted: LocalClientRequest = {
    ...request,
    onData: (chunk) => {
      bytes += chunk.byteLength;
      request.onData(chunk);
    },
  };
  const bytesRead = (): number => bytes;
  return request.pty ? ptyClient(counted, request.pty, bytesRead) : pipeClient(counted, bytesRead);
}

async function ptyClient(
  request: LocalClientRequest,
  size: { cols: number; rows: number },
  bytesRead: () => number,
): Promise<LocalClient> {
  const [file = "", ...args] = request.argv;
  const pty = await spawnWithPty({
    file,
    args,
    cwd: homedir(),
    env: clientEnv(request.term),
    stdin: true,
    pty: size,
    exitDrainGraceMs: request.exitDrainGraceMs,
    maxPendingStdinBytes: request.maxPendingStdinBytes,
    onData: request.onData,
    signal: request.signal,
  });
  return {
    pid: pty.pid,
    ended: pty.settled.then(() => undefined),
    get writable() {
      return pty.writable;
    },
    write: (data) => pty.write(data),
    endInput: (data) => pty.endInput(data),
    resize: (cols, rows) => pty.resize(cols, rows),
    said: () => "",
    stop: () => signalClient(pty.pid),
    bytesRead,
  };
}

async function pipeClient(
  request: LocalClientRequest,
  bytesRead: () => number,
): Promise<LocalClient> {
  const [file = "", ...args] = request.argv;
  const child = spawn(file, args, {
    stdio: [request.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    env: clientEnv(request.term),
    detached: true,
  });
  const stderr = new TailText(4096);
  child.stderr?.on("data", (chunk: Buffer) => stderr.append(chunk));
  if (!child.stdout) {
    throw new TerminalError("spawn_failed", `Cannot read the output of ${file}`);
  }
  const stdout: Readable = readPipe(child.stdout, request.onData);
  stdout.on("error", () => {}); // a read error ends the stream; 'close' follows
  try {
    await once(child, "spawn");
  } catch (error) {
    throw new TerminalError("spawn_failed", `Cannot run ${file}: ${messageOf(error)}`, {
      command: file,
    });
  }
  child.on("error", () => {}); // a failed kill or write after spawn: its caller reports it
  const exited = once(child, "exit").then(() => undefined);
  const closed = new Promise<void>((resolve) => {
    if (stdout.closed) {
      resolve();
    } else {
      stdout.once("close", () => resolve());
    }
  });
  const input = child.stdin ? new PipeInput(child.stdin, request.maxPendingStdinBytes) : undefined;
  const noStdin = (): TerminalError =>
    inputClosed(
      "the terminal was created without stdin; pass stdin: true to create to write to it",
    );
  return {
    pid: child.pid ?? -1,
    ended: Promise.all([exited, closed]).then(() => input?.close()),
    get writable() {
      return input?.writable ?? false;
    },
    write: (data) => (input ? input.write(data) : Promise.reject(noStdin())),
    endInput: (data) => (input ? input.endInput(data) : Promise.reject(noStdin())),
    resize: () => {
      throw new Error("resize of a pipe terminal");
    },
    said: () => stderr.text(),
    stop: () => {
      stdout.destroy();
      input?.close();
      signalClient(child.pid);
    },
    bytesRead,
  };
}

function signalClient(pid: number | undefined): void {
  if (pid === undefined) {
    return;
  }
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // ESRCH: it already exited, which is what stopping it was for.
  }
}
