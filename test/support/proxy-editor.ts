/**
 * A scripted editor for `acp-terminal proxy`: an SDK 2.4.0 client that advertises nothing (no
 * terminal, no fs, no `_meta`) on the proxy's real stdio, with every line that crosses kept as the
 * bytes it was, both ways, so a test can compare them with what the agent sent and received.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  client,
  type AnyMessage,
  type ClientConnection,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import { killSurvivors } from "./processes.js";
import { until, withDeadline } from "./until.js";

export const CLI = fileURLToPath(
  new URL("../../packages/acp-terminal-cli/dist/main.js", import.meta.url),
);
export const PROXY_AGENT = fileURLToPath(new URL("../fixtures/proxy-agent.mjs", import.meta.url));

export interface ProxyEditorOptions {
  /** The proxy's options (before `--`). */
  proxyArgs?: string[];
  /** The agent's argv (after `--`); default: the raw fixture agent. */
  agent?: string[];
  env?: NodeJS.ProcessEnv;
  /** Answers the proxy's and the agent's permission requests; default: the first option. */
  permission?: (
    params: RequestPermissionRequest,
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /** The `initialize` params; default: protocol 1, no capabilities. */
  initialize?: Record<string, unknown>;
}

export interface ProxyEditor {
  readonly child: ChildProcessWithoutNullStreams;
  readonly connection: ClientConnection;
  /** Every line the proxy wrote to the editor, as received. */
  readonly received: string[];
  /** Every line the editor wrote to the proxy, as sent. */
  readonly sent: string[];
  /** The permission requests the editor was asked. */
  readonly permissions: RequestPermissionRequest[];
  /** The `initialize` answer. */
  readonly initialized: Record<string, unknown>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Writes one line to the proxy as it is (no SDK). */
  writeLine(line: string): void;
  /** The session updates received so far, parsed. */
  updates(): Array<Record<string, unknown>>;
  /** Waits for a received line (parsed) that `test` accepts. */
  waitFor(
    test: (message: Record<string, unknown>) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  stderr(): string;
  /** Starts a session; its id. */
  newSession(cwd?: string): Promise<string>;
  /** Sends a prompt; resolves with the stop reason. */
  prompt(sessionId: string, text: string): Promise<string>;
  /** Closes the proxy's stdin and waits for it to exit. */
  close(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export async function startProxyEditor(options: ProxyEditorOptions = {}): Promise<ProxyEditor> {
  const agent = options.agent ?? [process.execPath, PROXY_AGENT];
  const child = spawn(
    process.execPath,
    [CLI, "proxy", ...(options.proxyArgs ?? ["--yes"]), "--", ...agent],
    { stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env },
  );
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const received: string[] = [];
  const sent: string[] = [];
  const permissions: RequestPermissionRequest[] = [];
  let toSdk!: ReadableStreamDefaultController<AnyMessage>;
  const readable = new ReadableStream<AnyMessage>({ start: (c) => void (toSdk = c) });
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
    received.push(line);
    const message = parse(line);
    if (message !== undefined) {
      toSdk.enqueue(message as AnyMessage);
    }
  });
  child.stdout.once("end", () => toSdk.close());
  const writable = new WritableStream<AnyMessage>({
    write: (message) => {
      const line = JSON.stringify(message);
      sent.push(line);
      child.stdin.write(`${line}\n`);
    },
  });
  child.stdin.on("error", () => undefined);
  const app = client({ name: "proxy-test-editor" })
    .onNotification("session/update", () => undefined)
    .onRequest("session/request_permission", async ({ params }) => {
      permissions.push(params);
      return options.permission
        ? options.permission(params)
        : { outcome: { outcome: "selected", optionId: params.options[0]!.optionId } };
    })
    .onRequest("*", ({ method }) => ({ editorSays: `answered ${method}` }));
  const connection = app.connect({ readable, writable });
  const initialized = (await withDeadline(
    connection.agent.request(
      "initialize",
      (options.initialize ?? { protocolVersion: 1, clientCapabilities: {} }) as never,
    ),
    10_000,
    "the proxy's initialize answer",
  )) as unknown as Record<string, unknown>;
  const editor: ProxyEditor = {
    child,
    connection,
    received,
    sent,
    permissions,
    initialized,
    exited,
    writeLine: (line) => {
      sent.push(line);
      child.stdin.write(`${line}\n`);
    },
    updates: () =>
      received
        .map(parse)
        .filter((m) => m?.["method"] === "session/update")
        .map((m) => (m!["params"] as { update: Record<string, unknown> }).update),
    waitFor: (test, what, timeoutMs = 10_000) =>
      until(
        () =>
          received.map(parse).find((m): m is Record<string, unknown> => m !== undefined && test(m)),
        { timeoutMs, message: what },
      ),
    stderr: () => stderr,
    newSession: async (cwd = process.cwd()) => {
      const session = await connection.agent.request("session/new", { cwd, mcpServers: [] });
      return session.sessionId;
    },
    prompt: async (sessionId, text) => {
      const response = await connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      return response.stopReason;
    },
    close: async (timeoutMs = 10_000) => {
      child.stdin.end();
      return withDeadline(exited, timeoutMs, "the proxy to exit after its stdin closed");
    },
  };
  return editor;
}

/**
 * The processes `find` still sees after a grace for them to end (a terminal's containment ends a
 * moment after the proxy); they are killed, and returned for the test to fail on.
 */
export async function leftAfterEnd(find: () => number[], graceMs = 5_000): Promise<number[]> {
  await until(() => find().length === 0, { timeoutMs: graceMs, message: "nothing left" }).catch(
    () => undefined,
  );
  const left = find();
  killSurvivors(left);
  return left;
}
