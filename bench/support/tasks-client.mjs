/**
 * An MCP Tasks requester for the benchmarks: `@modelcontextprotocol/ext-tasks` over an SDK v2
 * client, either revision, over stdio. For 2026-07-28 the extension needs a raw request path next
 * to the SDK client: requests go out on the client's own transport under ids of their own and their
 * answers are taken before the client sees them (as test/support/mcp-tasks-client.ts does).
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  createTaskSessionFromClient,
  toolDeclarationFromMcpTool,
} from "@modelcontextprotocol/ext-tasks/client";

const INFO = { name: "bench-ext-tasks", version: "1.0.0" };

/**
 * @param {"2025" | "2026"} revision
 * @param {{command: string, args: string[]}} server
 * @param {((params: Record<string, unknown>) => Promise<{action: string, content?: Record<string, unknown>}>) | undefined} elicit
 */
export async function tasksClient(revision, server, elicit) {
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  const client = new Client(INFO, {
    capabilities,
    ...(revision === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
  });
  if (elicit) client.setRequestHandler("elicitation/create", (request) => elicit(request.params));
  const transport = new StdioClientTransport({ ...server, stderr: "ignore" });
  await client.connect(transport);
  const tools = new Map(
    (await client.listTools()).tools.map((tool) => [tool.name, toolDeclarationFromMcpTool(tool)]),
  );
  const session = createTaskSessionFromClient(client, {
    endpointId: `bench-${revision}`,
    tools: { currentTool: (name) => tools.get(name) },
    ...(elicit ? { onInputRequest: (request) => elicit(request.params) } : {}),
    ...(revision === "2026"
      ? {
          rawDispatch: rawDispatch(transport),
          v2RequestFraming: {
            protocolVersion: "2026-07-28",
            clientInfo: INFO,
            clientCapabilities: capabilities,
          },
        }
      : {}),
  });
  return {
    client,
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}

function rawDispatch(transport) {
  const pending = new Map();
  let counter = 0;
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const waiting = pending.get(message.id);
    if (waiting && ("result" in message || "error" in message)) {
      pending.delete(message.id);
      clearTimeout(waiting.timer);
      waiting.resolve(
        "error" in message
          ? { kind: "error", error: message.error }
          : { kind: "result", result: message.result },
      );
      return;
    }
    inner?.(message, extra);
  };
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
      transport.send({ ...request, jsonrpc: "2.0", id }).catch((error) => {
        pending.delete(id);
        clearTimeout(timer);
        reject(error);
      });
    });
}
