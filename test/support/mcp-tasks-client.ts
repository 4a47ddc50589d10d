/**
 * A Tasks requester for the tests: `@modelcontextprotocol/ext-tasks` over an SDK v2 client, on
 * either revision. For 2026-07-28 the extension needs a raw request path next to the SDK client
 * (the SDK's typed wire rejects task shapes): `rawDispatch` sends through the client's own
 * transport under ids of its own and takes their answers before the client sees them.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  createTaskSessionFromClient,
  toolDeclarationFromMcpTool,
  type ApplicationElicitResult,
  type RawClientDispatch,
  type TaskEnabledSession,
  type ToolDeclaration,
} from "@modelcontextprotocol/ext-tasks/client";
import { MODERN_REVISION, type HttpTarget, type StdioTarget } from "./mcp-clients.js";

export interface TasksClient {
  revision: "2025" | "2026";
  client: Client;
  session: TaskEnabledSession;
  close(): Promise<void>;
}

/** How the test answers an elicitation (approval questions, a command waiting for stdin). */
export type Elicit = (params: Record<string, unknown>) => Promise<ApplicationElicitResult>;

const CLIENT_INFO = { name: "test-ext-tasks", version: "1.0.0" };

export async function connectTasksClient(
  revision: "2025" | "2026",
  target: { stdio: StdioTarget } | { http: HttpTarget },
  elicit?: Elicit,
): Promise<TasksClient> {
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  const client = new Client(CLIENT_INFO, {
    capabilities,
    ...(revision === "2026" ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {}),
  });
  if (elicit) {
    // 2025-11-25: the server asks with elicitation/create (the SDK's legacy input_required shim).
    client.setRequestHandler("elicitation/create", async (request) => {
      const answer = await elicit(request.params as Record<string, unknown>);
      // The form answers are scalars here (readonly arrays are not in the SDK's type).
      const content = answer.content as Record<string, string | number | boolean> | undefined;
      return content ? { action: answer.action, content } : { action: answer.action };
    });
  }
  const transport =
    "stdio" in target
      ? new StdioClientTransport({ ...target.stdio, stderr: "pipe" })
      : new StreamableHTTPClientTransport(
          new URL(target.http.url),
          target.http.token
            ? { requestInit: { headers: { authorization: `Bearer ${target.http.token}` } } }
            : undefined,
        );
  await client.connect(transport);
  const tools = new Map<string, ToolDeclaration>(
    (await client.listTools()).tools.map((tool) => [tool.name, toolDeclarationFromMcpTool(tool)]),
  );
  const session = createTaskSessionFromClient(client, {
    endpointId: `test-${revision}`,
    tools: { currentTool: (name) => tools.get(name) },
    ...(elicit
      ? {
          onInputRequest: async (request) => {
            if (request.kind !== "elicitation") {
              throw new Error(`unexpected input request ${request.kind}`);
            }
            // An elicitation's answer is what ApplicationInputResult is for an elicitation request.
            return (await elicit(request.params as Record<string, unknown>)) as never;
          },
        }
      : {}),
    ...(revision === "2026"
      ? {
          rawDispatch: rawDispatch(transport),
          v2RequestFraming: {
            protocolVersion: MODERN_REVISION,
            clientInfo: CLIENT_INFO,
            clientCapabilities: capabilities,
          },
        }
      : {}),
  });
  return {
    revision,
    client,
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}

interface Pending {
  resolve: (response: Awaited<ReturnType<RawClientDispatch>>) => void;
  timer: NodeJS.Timeout | undefined;
}

/** Requests sent on the client's transport under ids of their own; their responses taken before the client's handler. */
function rawDispatch(transport: {
  send(message: never): Promise<void>;
  onmessage?: ((message: never, extra?: never) => void) | undefined;
}): RawClientDispatch {
  const pending = new Map<string, Pending>();
  let counter = 0;
  const inner = transport.onmessage;
  transport.onmessage = ((message: Record<string, unknown>, extra?: never) => {
    const id = message["id"];
    const waiting = typeof id === "string" ? pending.get(id) : undefined;
    if (waiting && ("result" in message || "error" in message)) {
      pending.delete(id as string);
      clearTimeout(waiting.timer);
      waiting.resolve(
        "error" in message
          ? { kind: "error", error: message["error"] as never }
          : { kind: "result", result: message["result"] as never },
      );
      return;
    }
    inner?.(message as never, extra);
  }) as never;
  return (request, options) =>
    new Promise((resolve, reject) => {
      const id = `raw-${++counter}`;
      const timeoutMs = options?.context?.requestTimeoutMs;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              pending.delete(id);
              resolve({
                kind: "error",
                error: { code: -32001, message: `timed out after ${timeoutMs} ms` },
              });
            }, timeoutMs);
      pending.set(id, { resolve, timer });
      options?.signal?.addEventListener("abort", () => {
        pending.delete(id);
        clearTimeout(timer);
        reject(options.signal!.reason);
      });
      transport
        .send({ ...(request as Record<string, unknown>), jsonrpc: "2.0", id } as never)
        .catch((error: unknown) => {
          pending.delete(id);
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
}
