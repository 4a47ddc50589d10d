/**
 * The MCP clients the tests drive the server with, behind one small interface: the v2 SDK
 * (`@modelcontextprotocol/client`) in its default 2025 handshake and pinned to 2026-07-28, and
 * the v1 SDK (`@modelcontextprotocol/sdk` 1.x) that today's hosts embed.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export const MODERN_REVISION = "2026-07-28";

export type ClientKind = "v2" | "v2-modern" | "v1";
export const CLIENT_KINDS: readonly ClientKind[] = ["v2", "v2-modern", "v1"];

export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface ToolCallResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

export interface CallOptions {
  onprogress?: (progress: { progress: number; message?: string | undefined }) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface McpTestClient {
  kind: ClientKind;
  /** The revision the handshake settled on. */
  protocolVersion: string | undefined;
  listTools(): Promise<ToolInfo[]>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<ToolCallResult>;
  close(): Promise<void>;
}

export interface StdioTarget {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface HttpTarget {
  url: string;
  token?: string;
  /** Sent with every request (e.g. a host config's `headers`). */
  headers?: Record<string, string>;
}

const REQUEST_TIMEOUT_MS = 20_000;

/** An elicitation answer, as a client's user gives it. */
export type ElicitAnswer = {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean>;
};

/** The client's user: answers `elicitation/create` (form mode). Given, the client declares elicitation. */
export type Elicit = (params: {
  message: string;
  requestedSchema?: unknown;
}) => Promise<ElicitAnswer>;

export interface ClientOptions {
  elicit?: Elicit;
}

export async function connectStdio(
  kind: ClientKind,
  target: StdioTarget,
  options: ClientOptions = {},
): Promise<McpTestClient> {
  const params = {
    command: target.command,
    args: target.args,
    stderr: "pipe" as const,
    ...(target.env ? { env: target.env } : {}),
    ...(target.cwd ? { cwd: target.cwd } : {}),
  };
  if (kind === "v1") {
    const client = newClientV1(options);
    const revision = watchRevision(new StdioV1(params));
    await client.connect(revision.transport);
    return wrapV1(client, revision.version());
  }
  const client = newClientV2(kind, options);
  await client.connect(new StdioV2(params));
  return wrapV2(kind, client);
}

export async function connectHttp(
  kind: ClientKind,
  target: HttpTarget,
  options: ClientOptions = {},
): Promise<McpTestClient> {
  const headers = {
    ...target.headers,
    ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
  };
  const requestInit = Object.keys(headers).length > 0 ? { headers } : undefined;
  if (kind === "v1") {
    const client = newClientV1(options);
    const revision = watchRevision(
      new HttpV1(new URL(target.url), requestInit ? { requestInit } : undefined),
    );
    await client.connect(revision.transport);
    return wrapV1(client, revision.version());
  }
  const client = newClientV2(kind, options);
  await client.connect(new HttpV2(new URL(target.url), requestInit ? { requestInit } : undefined));
  return wrapV2(kind, client);
}

function newClientV2(kind: ClientKind, options: ClientOptions): ClientV2 {
  const client = new ClientV2(
    { name: `test-${kind}`, version: "1.0.0" },
    {
      ...(kind === "v2-modern" ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {}),
      ...(options.elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  const { elicit } = options;
  if (elicit) {
    client.setRequestHandler("elicitation/create", async (request) =>
      elicit(request.params as { message: string; requestedSchema?: unknown }),
    );
  }
  return client;
}

function newClientV1(options: ClientOptions): ClientV1 {
  const client = new ClientV1(
    { name: "test-v1", version: "1.0.0" },
    options.elicit ? { capabilities: { elicitation: {} } } : {},
  );
  const { elicit } = options;
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      elicit(request.params as { message: string; requestedSchema?: unknown }),
    );
  }
  return client;
}

function wrapV2(kind: ClientKind, client: ClientV2): McpTestClient {
  return {
    kind,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: async () => (await client.listTools()).tools as ToolInfo[],
    callTool: async (name, args, options = {}) =>
      (await client.callTool(
        { name, arguments: args },
        {
          timeout: options.timeoutMs ?? REQUEST_TIMEOUT_MS,
          ...(options.onprogress ? { onprogress: options.onprogress } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      )) as ToolCallResult,
    close: () => client.close(),
  };
}

/** The v1 client does not expose the negotiated revision: read it from the initialize result as it arrives. */
function watchRevision<T extends object>(
  transport: T,
): { transport: T; version: () => string | undefined } {
  let version: string | undefined;
  let handler: ((message: unknown, extra?: unknown) => void) | undefined;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => handler,
    set: (next: (message: unknown, extra?: unknown) => void) => {
      handler = (message, extra) => {
        const result = (message as { result?: { protocolVersion?: unknown } }).result;
        if (version === undefined && typeof result?.protocolVersion === "string") {
          version = result.protocolVersion;
        }
        next(message, extra);
      };
    },
  });
  return { transport, version: () => version };
}

function wrapV1(client: ClientV1, protocolVersion: string | undefined): McpTestClient {
  return {
    kind: "v1",
    protocolVersion,
    listTools: async () => (await client.listTools()).tools as ToolInfo[],
    callTool: async (name, args, options = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: options.timeoutMs ?? REQUEST_TIMEOUT_MS,
        ...(options.onprogress ? { onprogress: options.onprogress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      })) as ToolCallResult,
    close: () => client.close(),
  };
}
