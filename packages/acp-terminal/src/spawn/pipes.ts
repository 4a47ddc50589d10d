import { type ChildProcess, spawn as spawnChild } from "node:child_process";
import { once } from "node:events";
import type { Readable } from "node:stream";
import type { TerminalError } from "../core/errors.js";
import type { ExitStatus } from "../core/types.js";
import { spawnError } from "./errors.js";
import { inputClosed, PipeInput } from "./input.js";
import { withStderrOnStdout } from "./merge-output.js";
import { readPipe } from "./pipe-reader.js";
import { checkProgram } from "./program.js";
import type { SpawnedProcess, SpawnRequest } from "./types.js";

const noStdin = (): TerminalError =>
  inputClosed("the terminal was created without stdin; pass stdin: true to create to write to it");

/** Most grace periods the drain after exit is extended while a background process keeps writing. */
const MAX_DRAIN_ROUNDS = 8;

/** Its end was read ('end'; 'close' follows a tick later) or it closed without one (an error). */
function ended(stream: Readable): Promise<void> {
  return stream.readableEnded || stream.closed
    ? Promise.resolve()
    : new Promise((resolve) => {
        stream.once("end", resolve);
        stream.once("close", resolve);
      });
}

/** Resolves after the event loop's next poll phase, which reads whatever the pipes already hold. */
const nextPoll = (): Promise<false> => new Promise((resolve) => setImmediate(() => resolve(false)));

/**
 * Waits, after the process exited, for its output pipes to end; true when they did. A background
 * grandchild may hold them open: then the wait ends once a grace period passes with no output (and
 * after MAX_DRAIN_ROUNDS periods at the latest). Before judging a period quiet, the event loop gets
 * one poll phase to read what is already in the pipes, so a busy loop that makes the timer fire late
 * cannot cut trailing output.
 */
export async function drainAfterExit(
  outputs: Readable[],
  graceMs: number,
  signal: AbortSignal,
  bytesRead: () => number,
  hold: () => Promise<unknown> | undefined,
): Promise<boolean> {
  if (outputs.every((stream) => stream.readableEnded || stream.closed)) {
    return true; // the usual case: the pipes' end was read before the exit was known
  }
  const drained = Promise.all(outputs.map(ended)).then(() => true);
  for (let round = 0; round < MAX_DRAIN_ROUNDS; round++) {
    // A kill under way: its group may still write while it cleans up; the kill bounds the wait.
    for (let held = hold(); held; held = hold()) {
      if (await Promise.race([drained, held.then(() => false)])) {
        return true;
      }
      if (hold() === held) {
        break;
      }
    }
    const before = bytesRead();
    // Aborted (released meanwhile): stop waiting as if the pipes had gone quiet.
    const grace = graceTimer(graceMs, signal);
    const waited = await Promise.race([drained, grace.done]);
    grace.cancel();
    if (waited === undefined) {
      return false;
    }
    if (waited || (await Promise.race([drained, nextPoll()]))) {
      return true;
    }
    if (bytesRead() === before) {
      return false;
    }
  }
  return false;
}

/**
 * false after `ms`, undefined once `signal` aborts, cancelled (timer and listener gone) when the
 * drain no longer waits: a timers/promises delay left behind built an AbortError with its stack
 * when the terminal's controller aborted, once per command.
 */
function graceTimer(
  ms: number,
  signal: AbortSignal,
): { done: Promise<false | undefined>; cancel: () => void } {
  if (signal.aborted) {
    return { done: Promise.resolve(undefined), cancel: () => undefined };
  }
  let timer: NodeJS.Timeout | undefined;
  let onAbort = (): void => undefined;
  const done = new Promise<false | undefined>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return {
    done,
    cancel: () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    },
  };
}

/** What a kill under way holds the drain open with (see `SpawnedProcess.holdDrainUntil`). */
export class DrainHold {
  #held: Promise<unknown> | undefined;

  readonly current = (): Promise<unknown> | undefined => this.#held;

  until(done: Promise<unknown>): void {
    const held = done.then(
      () => undefined,
      () => undefined,
    );
    this.#held = held;
    void held.then(() => {
      if (this.#held === held) {
        this.#held = undefined;
      }
    });
  }
}

/**
 * Starts a command with pipes: its own process group (`detached`), stdin ignored unless asked
 * for, stdout and stderr one descriptor (see merge-output.ts) read into `onData`. The program is
 * looked up first, as the shell that merges the two would only print that it is missing. Resolves
 * once the process has spawned; an `error` before `spawn` means it never ran, and rejects with
 * what and why.
 */
export async function spawnWithPipes(request: SpawnRequest): Promise<SpawnedProcess> {
  // The callbacks below live as long as the terminal: they must not close over `request`, whose
  // copy of the environment could then never be collected.
  const { onData: deliver, exitDrainGraceMs, signal } = request;
  const child = launch(request);
  let bytesRead = 0;
  const onData = (chunk: Uint8Array): void => {
    bytesRead += chunk.byteLength;
    deliver(chunk);
  };
  const outputs = [child.stdout, child.stderr]
    .filter((stream): stream is Readable => stream !== null)
    .map((stream) => readPipe(stream, onData));
  for (const stream of outputs) {
    // A read error ends the stream ('close' follows), which the drain below already handles.
    stream.on("error", () => {});
  }
  let exitStatus: ExitStatus | undefined;
  const leaderExited = new Promise<ExitStatus>((resolve) => {
    child.once("exit", (exitCode, signal) => {
      exitStatus = { exitCode, signal };
      resolve(exitStatus);
    });
  });
  try {
    await once(child, "spawn");
  } catch (error) {
    for (const stream of [child.stdin, ...outputs]) {
      stream?.destroy();
    }
    throw spawnError(request.file, error);
  }
  // After 'spawn', an 'error' is a failed kill or write; those callers report it themselves.
  child.on("error", () => {});

  const input = child.stdin ? new PipeInput(child.stdin, request.maxPendingStdinBytes) : undefined;
  const drainHold = new DrainHold();
  const settled = leaderExited.then(async (status) => {
    const drained = await drainAfterExit(
      outputs,
      exitDrainGraceMs,
      signal,
      () => bytesRead,
      drainHold.current,
    );
    if (!drained) {
      // A background grandchild still holds the pipes: stop reading so nothing waits on it.
      for (const stream of outputs) {
        stream.destroy();
      }
    }
    input?.close();
    return status;
  });

  return {
    pid: child.pid ?? -1,
    pty: false,
    leaderExited,
    settled,
    hasExited: () => exitStatus !== undefined,
    get writable() {
      return input?.writable ?? false;
    },
    write: (data) => (input ? input.write(data) : Promise.reject(noStdin())),
    endInput: (data) => (input ? input.endInput(data) : Promise.reject(noStdin())),
    holdDrainUntil: (done) => drainHold.until(done),
    resize: () => {
      throw new Error("resize of a pipe terminal");
    },
  };
}

/**
 * Looks the program up and spawns it in its own process group, stderr merged into stdout where
 * a shell can merge them. Throws at once only for arguments Node refuses.
 */
function launch(request: SpawnRequest): ChildProcess {
  const program = checkProgram(request.file, request.cwd, request.env.PATH);
  const [file = program, ...args] = withStderrOnStdout([
    ...(request.prefix ?? []),
    program,
    ...request.args,
  ]);
  const merged = file !== (request.prefix?.[0] ?? program);
  try {
    return spawnChild(file, args, {
      cwd: request.cwd,
      env: request.env,
      detached: true,
      // Merged: the shell makes fd 2 a copy of fd 1 before it runs the command.
      stdio: [request.stdin ? "pipe" : "ignore", "pipe", merged ? "ignore" : "pipe"],
      windowsHide: true,
    });
  } catch (error) {
    throw spawnError(request.file, error);
  }
}
