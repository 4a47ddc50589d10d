/**
 * Starts test/fixtures/terminal-client.mjs (an ACP client hosting terminals) as a child process
 * and plays the agent over its stdio with the real SDK. Every pid a test reports through
 * `trackPid` is SIGKILLed in `stop()` if it is still alive, so a failing test leaves no orphans.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  agent,
  ndJsonStream,
  RequestError,
  type AgentContext,
  type InitializeRequest,
  type TerminalOutputResponse,
} from "@agentclientprotocol/sdk";
import { killSurvivors } from "./processes.js";
import { until, withDeadline } from "./until.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/terminal-client.mjs", import.meta.url));

export interface TerminalClientOptions {
  host?: Record<string, unknown>;
  maxMessageBytes?: number;
  sessionCwd?: string;
  /** Sessions the client opens with session/new before `client` may be used. Default: DEFAULT_SESSIONS. */
  sessions?: string[];
}

/** The session ids the wire tests use. */
export const DEFAULT_SESSIONS = ["session-1", "session-2", "session-x", "flood", "since", "a", "b"];

export interface TerminalClientProcess {
  /** Call client methods (terminal/*, _acp-terminal/*) as the agent; calls wait until the client's sessions are open. */
  readonly client: AgentContext;
  readonly child: ChildProcessWithoutNullStreams;
  /** The `initialize` params the client sent. */
  readonly initialize: Promise<InitializeRequest>;
  /** Everything the client wrote on stderr so far. */
  stderr(): string;
  trackPid(pid: number): void;
  /** Goes away as an agent would: closes the connection and the client's stdin. */
  closeConnection(): void;
  /** Ends the connection and the process, then kills any tracked pid still alive. */
  stop(): Promise<void>;
}

export function startTerminalClient(options: TerminalClientOptions = {}): TerminalClientProcess {
  const fixtureOptions = { ...options, sessions: options.sessions ?? DEFAULT_SESSIONS };
  const child = spawn(process.execPath, [FIXTURE, JSON.stringify(fixtureOptions)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const pids = new Set<number>();
  let resolveInitialize: (request: InitializeRequest) => void = () => {};
  const initialize = new Promise<InitializeRequest>((resolve) => (resolveInitialize = resolve));
  const app = agent({ name: "wire-test-agent" })
    .onRequest("initialize", ({ params }) => {
      resolveInitialize(params);
      return { protocolVersion: 1, agentCapabilities: {} };
    })
    .onRequest("session/new", ({ params }) => {
      const wanted = (params._meta?.["acp-terminal-test"] as { sessionId?: string } | undefined)
        ?.sessionId;
      return { sessionId: wanted ?? `session-${Math.random().toString(36).slice(2)}` };
    });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes },
  );
  const connection = app.connect(stream);
  const exited = once(child, "exit");
  // The client has recorded its sessions once it says so; requests wait for that.
  const ready = until(() => stderr.includes("sessions ready\n"), {
    timeoutMs: 10_000,
    message: "the terminal client's sessions",
  });
  ready.catch(() => {}); // reported by the first request that waits for it
  const gated = Object.create(connection.client) as AgentContext;
  for (const method of ["request", "notify", "createTerminal"] as const) {
    const original = (connection.client[method] as (...args: unknown[]) => Promise<unknown>).bind(
      connection.client,
    );
    Object.defineProperty(gated, method, {
      value: async (...args: unknown[]) => (await ready, original(...args)),
    });
  }
  return {
    client: gated,
    child,
    initialize,
    stderr: () => stderr,
    trackPid: (pid) => pids.add(pid),
    closeConnection: () => {
      connection.close();
      child.stdin.end();
    },
    async stop() {
      connection.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        await withDeadline(
          exited,
          10_000,
          "the terminal client to exit after its stdin closed",
        ).catch(() => {
          child.kill("SIGKILL");
        });
      }
      const survivors = killSurvivors(pids);
      if (survivors.length > 0) {
        throw new Error(`processes outlived the test: ${survivors.join(", ")}`);
      }
    },
  };
}

/** The RequestError a call rejected with (fails the test if it resolved). */
export async function rejectionOf(promise: Promise<unknown>): Promise<RequestError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) {
    throw new Error(`expected an error, got ${JSON.stringify(outcome.value)}`);
  }
  if (!(outcome.error instanceof RequestError)) {
    throw outcome.error;
  }
  return outcome.error;
}

/** Polls `terminal/output` until its output satisfies `predicate`; returns that response. */
export async function outputWhere(
  client: AgentContext,
  ids: { sessionId: string; terminalId: string },
  predicate: (output: string) => boolean,
  timeoutMs = 5_000,
) {
  let last = "";
  try {
    return await until(
      async () => {
        const response = await client.request<TerminalOutputResponse>("terminal/output", ids);
        last = response.output;
        return predicate(response.output) ? response : undefined;
      },
      { timeoutMs, message: `terminal ${ids.terminalId} output to match` },
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}; last output: ${JSON.stringify(last.slice(-500))}`,
    );
  }
}
