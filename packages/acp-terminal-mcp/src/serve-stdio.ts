import type { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { LineStdioTransport } from "./stdio-transport.js";

/**
 * Serves MCP on this process's stdin/stdout (both eras: a 2025 `initialize` handshake, or
 * 2026-07-28 per-request envelopes) until the client closes stdin. Resolves then.
 */
export async function serveOnStdio(
  factory: () => Server,
  onerror: (error: Error) => void,
): Promise<void> {
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  // Our transport: a message over the size limit gets an error of its own instead of deafening the server.
  const handle = serveStdio(factory, { onerror, transport: new LineStdioTransport() });
  await ended;
  await handle.close();
}
