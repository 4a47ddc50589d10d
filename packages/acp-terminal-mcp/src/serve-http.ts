import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from "node:http";
import {
  localhostHostValidation,
  toNodeHandler,
  type NodeIncomingMessageLike,
} from "@modelcontextprotocol/node";
import { createMcpHandler, type Server } from "@modelcontextprotocol/server";
import { TokenGate } from "./http-gate.js";
import type { ListenAddress } from "./listen-address.js";

export const MCP_PATH = "/mcp";
/** Connections served at once (those without the token are bounded far lower, see TokenGate). */
const MAX_CONNECTIONS = 1024;
/** How long a request's headers, and the whole request, may take to arrive. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;

export interface HttpServing {
  /** `http://HOST:PORT/mcp` with the port actually bound. */
  url: string;
  /** Stops accepting, aborts exchanges in flight, closes connections. */
  close(): Promise<void>;
}

/**
 * Serves MCP Streamable HTTP at `/mcp` through the SDK's own handler (`createMcpHandler`: the
 * 2026-07-28 revision, and 2025-era clients statelessly; bodies over 4 MiB get 413) and its Node
 * adapter. Every request must carry `Authorization: Bearer <token>`, checked on the headers before
 * the body is read (401 otherwise, see TokenGate). On loopback the Host header must name
 * localhost (DNS-rebinding protection).
 */
export async function serveOnHttp(
  factory: () => Server,
  address: ListenAddress,
  token: string,
  onerror: (error: Error) => void,
): Promise<HttpServing> {
  const handler = createMcpHandler(factory, { onerror });
  const gate = new TokenGate(token);
  const serve = toNodeHandler(handler, { onerror });
  const validateHost = address.loopback ? localhostHostValidation() : undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? "/", "http://localhost").pathname !== MCP_PATH) {
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    if (validateHost && !validateHost(req, res)) {
      return;
    }
    if (!gate.check(req, res)) {
      return;
    }
    // The SDK declares `method?: string` where Node's IncomingMessage has `string | undefined`, so
    // under exactOptionalPropertyTypes the request Node hands us does not fit the SDK's own type.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- SDK type gap, see above
    serve(req as NodeIncomingMessageLike, res).catch(onerror);
  });
  server.maxConnections = MAX_CONNECTIONS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  gate.watch(server);
  await listen(server, address);
  const bound = server.address();
  if (bound === null || typeof bound === "string") {
    throw new Error(`the HTTP server is not listening on a TCP port (${String(bound)})`);
  }
  const host = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}${MCP_PATH}`,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listen(server: HttpServer, address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `Cannot listen on ${address.host}:${address.port}: ${error.code ?? error.message}`,
        ),
      ),
    );
    server.listen(address.port, address.host, () => resolve());
  });
}
