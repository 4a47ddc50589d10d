// The HTTP plumbing the two model API stand-ins share: a server on 127.0.0.1 (an ephemeral port),
// JSON bodies read with a size bound, server-sent events, and a log of every request (method, path,
// what was answered) that the recording script prints when an adapter misbehaves.
import { createServer } from "node:http";
import { once } from "node:events";

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_LOGGED_REQUESTS = 1000;

/**
 * @typedef {{ method: string, path: string, answer: string, body?: unknown }} LoggedRequest
 * @typedef {{ status: (code: number, body: unknown) => void,
 *             events: (events: Array<[string | null, unknown]>, pauseMs?: number) => Promise<void> }} Reply
 * @typedef {(request: { method: string, path: string, body: any, headers: import("node:http").IncomingHttpHeaders },
 *            reply: Reply) => Promise<string> | string} Handler
 */

/**
 * Starts a stand-in on 127.0.0.1. `handle` answers one request through `reply` and returns a short
 * description of its answer, logged beside the request.
 * @param {Handler} handle
 * @param {{ keepBodies?: boolean }} [options] keep each parsed body in the log (for debugging)
 */
export async function startStandIn(handle, options = {}) {
  /** @type {LoggedRequest[]} */
  const log = [];
  const server = createServer((request, response) => {
    void serve(request, response).catch((error) => {
      log.push({ method: request.method ?? "?", path: request.url ?? "?", answer: `500 ${error}` });
      if (!response.headersSent) {
        response.writeHead(500, { "content-type": "application/json" });
      }
      response.end(JSON.stringify({ error: { type: "api_error", message: String(error) } }));
    });
  });

  /**
   * @param {import("node:http").IncomingMessage} request
   * @param {import("node:http").ServerResponse} response
   */
  async function serve(request, response) {
    const raw = await readBody(request);
    let body = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    /** @type {Reply} */
    const reply = {
      status(code, answer) {
        response.writeHead(code, { "content-type": "application/json" });
        response.end(JSON.stringify(answer));
      },
      async events(events, pauseMs = 0) {
        response.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          connection: "keep-alive",
        });
        for (const [name, data] of events) {
          const head = name === null ? "" : `event: ${name}\n`;
          response.write(`${head}data: ${JSON.stringify(data)}\n\n`);
          if (pauseMs > 0) {
            await new Promise((resolve) => setTimeout(resolve, pauseMs));
          }
        }
        response.end();
      },
    };
    const method = request.method ?? "?";
    const path = request.url ?? "?";
    const answer = await handle({ method, path, body, headers: request.headers }, reply);
    if (log.length < MAX_LOGGED_REQUESTS) {
      log.push({ method, path, answer, ...(options.keepBodies ? { body } : {}) });
    }
  }

  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") {
    throw new Error("the stand-in server has no TCP address");
  }
  return {
    url: `http://127.0.0.1:${address.port}`,
    log,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** @param {import("node:http").IncomingMessage} request */
async function readBody(request) {
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The commands every scripted model asks for, the same for both adapters. */
export const FOREGROUND_COMMAND =
  "for i in 1 2 3; do echo step $i; sleep 0.3; done; printf 'é✓🚀\\n'";
export const BACKGROUND_COMMAND = "for i in 1 2 3 4 5; do echo tick $i; sleep 0.5; done";
/** What the model runs in a cancel scenario: long enough that only a cancel ends it. */
export const LONG_COMMAND = "for i in $(seq 1 100); do echo tick $i; sleep 0.5; done";
/** The prompt text that selects the cancel scenario (any other prompt runs the demo scenario). */
export const CANCEL_PROMPT = "run the long loop";
