import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** Connections that have not yet shown the token, at most; a new one closes the oldest. */
export const MAX_UNAUTHENTICATED = 64;
/** How long a connection may stay without showing the token. */
export const UNAUTHENTICATED_MS = 10_000;

/**
 * The bearer-token gate in front of the MCP handler, and the bounds on connections that have not
 * passed it. The token is checked on the request's headers before a byte of its body is read: a
 * request without it, or with another, is answered 401 and its connection closed. A connection
 * counts as unauthenticated until one of its requests shows the token; such connections are
 * bounded in number (the oldest is closed when a new one would pass MAX_UNAUTHENTICATED) and in
 * time (closed after UNAUTHENTICATED_MS), so idle or slow connections cannot fill the server, and
 * a client with the token always gets in: its connection is the newest, and it shows the token
 * at once.
 */
export class TokenGate {
  private readonly expected: Buffer;
  private readonly waiting = new Map<Socket, NodeJS.Timeout>();

  constructor(token: string) {
    this.expected = digest(token);
  }

  /** Tracks the server's connections from now on. */
  watch(server: HttpServer): void {
    server.on("connection", (socket: Socket) => this.admit(socket));
  }

  /**
   * True when the request carries the token (its connection is then trusted); otherwise answers
   * 401, closes the connection and returns false. The body is never read here.
   */
  check(req: IncomingMessage, res: ServerResponse): boolean {
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match && timingSafeEqual(digest(match[1]!), this.expected)) {
      this.trust(req.socket);
      return true;
    }
    res.shouldKeepAlive = false;
    res
      .writeHead(401, {
        "content-type": "application/json",
        "www-authenticate": 'Bearer error="invalid_token"',
        connection: "close",
      })
      .end(
        JSON.stringify({
          error: "invalid_token",
          error_description: match
            ? "wrong bearer token"
            : "this server needs Authorization: Bearer <token> on every request (see its --token, --token-file)",
        }),
        () => req.socket.destroy(),
      );
    return false;
  }

  private admit(socket: Socket): void {
    if (this.waiting.size >= MAX_UNAUTHENTICATED) {
      const [oldest] = this.waiting.keys();
      if (oldest) {
        this.trust(oldest); // no longer counted: it is going
        oldest.destroy();
      }
    }
    const timer = setTimeout(() => socket.destroy(), UNAUTHENTICATED_MS);
    timer.unref();
    this.waiting.set(socket, timer);
    socket.once("close", () => this.trust(socket));
  }

  private trust(socket: Socket): void {
    clearTimeout(this.waiting.get(socket));
    this.waiting.delete(socket);
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
