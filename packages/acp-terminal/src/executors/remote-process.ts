import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { TerminalError } from "../core/errors.js";
import type { ExitStatus } from "../core/types.js";
import type { ExecutedProcess, ExecutorSpawnRequest } from "./types.js";
import type { RemoteConnection } from "./remote-connection.js";
import type { RemoteEvent } from "./remote-events.js";
import { drainUntilQuiet } from "./remote-drain.js";
import { startLocalClient, type LocalClient } from "./session-client.js";
import { RemoteGroup } from "./remote-group.js";
import { encodeSpec, startFailure } from "./remote-spec.js";

export interface RemoteSession {
  connection: RemoteConnection;
  /** `ssh://box`: named in messages. */
  target: string;
  /** The local command that runs `remoteArgv` in a session of its own (pipes, or a PTY). */
  sessionCommand(remoteArgv: string[], pty: boolean): string[];
  /** The request's cwd as a path on the other machine (a mounted workspace is mapped). */
  remoteCwd(cwd: string): string;
  /** Called once when the terminal's session has ended (its local client exited) or never began. */
  sessionEnded(): void;
}

/** How long a started session may take to report `started` (ssh may still be opening a channel). */
const START_TIMEOUT_MS = 30_000;

/** How long to wait for the agent's answer before saying a session ended without a report. */
const SYNC_TIMEOUT_MS = 5000;

/** Longest wait of input behind a resize the agent has not confirmed. */
const RESIZE_WAIT_MS = 2000;

/** What a terminal whose remote side is gone reports: the agent SIGKILLs what was left there. */
const LOST_STATUS: ExitStatus = { exitCode: null, signal: "SIGKILL" };

/**
 * Starts one command on the other end of `session.connection`: its spec goes to the agent, a local
 * client opens the terminal's session running the wrapper, and the wrapper's reports (through the
 * agent) give its pid, exec errors and exact exit status. Output comes through the client.
 */
export async function spawnRemote(
  session: RemoteSession,
  request: ExecutorSpawnRequest,
): Promise<ExecutedProcess> {
  const { connection, target } = session;
  const token = randomBytes(8).toString("hex");
  const cwd = session.remoteCwd(request.cwd);
  const term = request.env.TERM ?? "xterm-256color";
  const env = request.pty ? { TERM: term, ...request.requestEnv } : request.requestEnv;
  const spec = encodeSpec({ ...request, cwd, env, marker: `${connection.nonce}.${token}` });

  let started!: (pid: number) => void;
  let refused!: (error: TerminalError) => void;
  const startedPid = new Promise<number>((resolve, reject) => {
    started = resolve;
    refused = reject;
  });
  let exit: ExitStatus | undefined;
  let resolveExit!: (status: ExitStatus) => void;
  const leaderExited = new Promise<ExitStatus>((resolve) => (resolveExit = resolve));
  let delivering = true;
  /** Input written after a resize waits until the remote PTY has the new size (see `resize`). */
  let inputGate: Promise<void> = Promise.resolve();
  let resized: (() => void) | undefined;
  const group = new RemoteGroup(connection, token);
  const finish = (status: ExitStatus, note?: string): void => {
    if (exit) {
      return;
    }
    if (note !== undefined) {
      request.onNotice?.(`[acp-terminal] ${note}`);
    }
    exit = status;
    resolveExit(status);
  };
  const unsubscribe = connection.subscribe(token, (event: RemoteEvent) => {
    group.onEvent(event);
    switch (event.kind) {
      case "started":
        started(event.pid);
        break;
      case "failed":
        refused(startFailure(event, request.file, cwd, target));
        break;
      case "exit":
        finish({ exitCode: event.exitCode, signal: event.signal });
        break;
      case "resized":
        resized?.();
        break;
      case "lost":
        refused(new TerminalError("spawn_failed", `The remote wrapper on ${target} vanished`));
        finish(
          LOST_STATUS,
          `the remote wrapper of this command on ${target} was killed; its process group was SIGKILLed`,
        );
        break;
      case "connection-lost":
        refused(new TerminalError("spawn_failed", `Lost ${target}: ${event.reason}`));
        finish(
          LOST_STATUS,
          `lost the connection to ${target} (${event.reason}); the command's own exit status is unknown, and the other side kills its process group`,
        );
        break;
      default:
        break;
    }
  });
  let client: LocalClient | undefined;
  try {
    connection.send(`spec ${token} ${spec.byteLength}`, spec);
    client = await startLocalClient({
      argv: session.sessionCommand(connection.wrapperArgv(token), request.pty !== undefined),
      stdin: request.stdin,
      pty: request.pty,
      term,
      maxPendingStdinBytes: request.maxPendingStdinBytes,
      exitDrainGraceMs: request.exitDrainGraceMs,
      onData: (chunk) => {
        if (delivering) {
          request.onData(chunk);
        }
      },
      signal: request.signal,
    });
    void client.ended.then(session.sessionEnded);
    const startingClient = client;
    const clientEnded = client.ended.then(async () => {
      await connection.sync(SYNC_TIMEOUT_MS); // a report of why it ended may still be on its way
      const said = startingClient.said().trim();
      throw new TerminalError(
        "spawn_failed",
        `The session on ${target} ended before the command started${said ? `: ${said}` : ""}`,
        { target },
      );
    });
    clientEnded.catch(() => {});
    const timer = new AbortController();
    try {
      await Promise.race([
        startedPid,
        clientEnded,
        timeout(START_TIMEOUT_MS, target, timer.signal),
      ]);
    } finally {
      timer.abort();
    }
  } catch (error) {
    client?.stop();
    unsubscribe();
    group.release();
    throw error;
  }
  const running = client;
  let hold: Promise<unknown> | undefined;
  const settled = leaderExited.then(async (status) => {
    const drained = await drainUntilQuiet(
      running.ended,
      request.exitDrainGraceMs,
      request.signal,
      () => running.bytesRead(),
      () => hold,
    );
    delivering = false;
    if (!drained) {
      running.stop(); // a background process holds the session's output: stop reading it
    }
    return status;
  });
  // Events are needed until release, not only until exit: a group that outlived its leader is
  // terminated on release, and its `empty` comes through here.
  group.onRelease(() => {
    running.stop();
    unsubscribe();
  });
  return {
    pid: running.pid,
    pty: request.pty !== undefined,
    leaderExited,
    settled,
    hasExited: () => exit !== undefined,
    get writable() {
      return running.writable && exit === undefined;
    },
    write: (data) => inputGate.then(() => running.write(data)),
    endInput: (data) => inputGate.then(() => running.endInput(data)),
    holdDrainUntil: (done) => {
      const held = done.then(
        () => undefined,
        () => undefined,
      );
      hold = held;
      void held.then(() => {
        if (hold === held) {
          hold = undefined;
        }
      });
    },
    // The local PTY's size reaches the remote one through ssh or docker too, but docker resizes
    // by an API call that input may overtake: the agent sets it on the remote PTY itself, and
    // input written meanwhile waits for its answer (at most RESIZE_WAIT_MS).
    resize: (cols, rows) => {
      running.resize(cols, rows);
      const done = new Promise<void>((resolve) => (resized = resolve));
      try {
        connection.send(`resize ${token} ${cols}x${rows}`);
      } catch {
        return; // the connection is gone: the terminal is ending, its size no longer matters
      }
      inputGate = Promise.race([done, delay(RESIZE_WAIT_MS, undefined, { ref: false })]);
    },
    group,
  };
}

/** Rejects after `ms` unless `signal` aborts first (then it never settles). */
async function timeout(ms: number, target: string, signal: AbortSignal): Promise<never> {
  const elapsed = await delay(ms, true, { ref: false, signal }).catch(() => false);
  if (!elapsed) {
    return new Promise<never>(() => {});
  }
  throw new TerminalError(
    "spawn_failed",
    `The command did not start on ${target} within ${ms} ms (the session opened but the remote helper did not answer)`,
    { target },
  );
}
