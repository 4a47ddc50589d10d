/**
 * The agent side of test/fixtures/terminal-client.mjs spoken as raw JSON-RPC lines, for tests
 * that send what the SDK would never build (5,000-level nesting, 20 MB values) and measure the
 * bytes of each answer as it crossed the pipe.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { until, withDeadline } from "./until.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/terminal-client.mjs", import.meta.url));

export interface RawAnswer {
  /** The line as received, without its newline. */
  line: string;
  bytes: number;
  message: {
    id?: unknown;
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
}

export interface RawPeer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Sends one line (a request) and resolves with the next line the client writes (its answer). */
  ask(line: string, timeoutMs?: number): Promise<RawAnswer>;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts the client, answers its initialize and one session/new per id in `sessions`. */
export async function startRawPeer(sessions: string[]): Promise<RawPeer> {
  const child = spawn(process.execPath, [FIXTURE, JSON.stringify({ sessions })], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const lines: string[] = [];
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) =>
    lines.push(line),
  );
  const nextLine = (timeoutMs: number) =>
    until(() => lines.shift(), {
      timeoutMs,
      intervalMs: 2,
      message: "a line from the terminal client",
    });
  const send = (value: string) => child.stdin.write(`${value}\n`);
  // initialize, then one session/new per session: answer each with what it asks for.
  for (let i = 0; i <= sessions.length; i++) {
    const request = JSON.parse(await nextLine(5_000)) as {
      id: number;
      method: string;
      params: { _meta?: Record<string, { sessionId: string }> };
    };
    const result =
      request.method === "initialize"
        ? { protocolVersion: 1, agentCapabilities: {} }
        : { sessionId: request.params._meta!["acp-terminal-test"]!.sessionId };
    send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result }));
  }
  await until(() => stderr.includes("sessions ready\n"), {
    timeoutMs: 5_000,
    message: "sessions ready",
  });
  const exited = once(child, "exit");
  return {
    child,
    async ask(line, timeoutMs = 30_000) {
      send(line);
      const answer = await nextLine(timeoutMs);
      return {
        line: answer,
        bytes: Buffer.byteLength(answer, "utf8"),
        message: JSON.parse(answer) as RawAnswer["message"],
      };
    },
    stderr: () => stderr,
    async stop() {
      child.stdin.end();
      await withDeadline(exited, 10_000, "the terminal client to exit").catch(() =>
        child.kill("SIGKILL"),
      );
    },
  };
}
