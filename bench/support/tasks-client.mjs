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
 * @param {((params: any) => Promise<any>) | undefined} elicit the client's user (answers elicitations)
 */
export async function tasksClient(revision, server, elicit) {
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  const client = new Client(INFO, {
    capabilities,
    ...(revision === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
  });
  if (elicit) {
    const answer = elicit;
    client.setRequestHandler("elicitation/create", (request) => answer(request.params));
  }
  const transport = new StdioClientTransport({ ...server, stderr: "ignore" });
  await client.connect(transport);
  const tools = new Map(
    (await client.listTools()).tools.map((tool) => [tool.name, toolDeclarationFromMcpTool(tool)]),
  );
  /** @type {any} */
  const options = {
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
  };
  const session = createTaskSessionFromClient(client, options);
  return {
    client,
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}

/** @param {any} transport */
function rawDispatch(transport) {
  const pending = new Map();
  let counter = 0;
  const inner = transport.onmessage;
  /** @type {(message: any, extra?: any) => void} */
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
  /** @type {(request: any, options?: any) => Promise<any>} */
  const dispatch = (request, options) =>
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
  return dispatch;
}
