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
import { createMcpHandler, requireBearerAuth, type Server } from "@modelcontextprotocol/server";
import type { ListenAddress } from "./listen-address.js";
import { staticTokenVerifier } from "./token.js";

export const MCP_PATH = "/mcp";
/** Connections served at once; more wait in the kernel's backlog. */
const MAX_CONNECTIONS = 256;

export interface HttpServing {
  /** `http://HOST:PORT/mcp` with the port actually bound. */
  url: string;
  /** Stops accepting, aborts exchanges in flight, closes connections. */
  close(): Promise<void>;
}

/**
 * Serves MCP Streamable HTTP at `/mcp` through the SDK's own handler (`createMcpHandler`: the
 * 2026-07-28 revision, and 2025-era clients statelessly) and its Node adapter. With a token,
 * every request must carry `Authorization: Bearer <token>` (401 otherwise). On loopback the Host
 * header must name localhost (DNS-rebinding protection).
 */
export async function serveOnHttp(
  factory: () => Server,
  address: ListenAddress,
  token: string | undefined,
  onerror: (error: Error) => void,
): Promise<HttpServing> {
  const handler = createMcpHandler(factory, { onerror });
  const gate =
    token === undefined ? undefined : requireBearerAuth({ verifier: staticTokenVerifier(token) });
  const serve = toNodeHandler(
    {
      fetch: async (request) => {
        if (!gate) {
          return handler.fetch(request);
        }
        const auth = await gate(request);
        return auth instanceof Response ? auth : handler.fetch(request, { authInfo: auth });
      },
    },
    { onerror },
  );
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
    // The SDK declares `method?: string` where Node's IncomingMessage has `string | undefined`, so
    // under exactOptionalPropertyTypes the request Node hands us does not fit the SDK's own type.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- SDK type gap, see above
    serve(req as NodeIncomingMessageLike, res).catch(onerror);
  });
  server.maxConnections = MAX_CONNECTIONS;
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
