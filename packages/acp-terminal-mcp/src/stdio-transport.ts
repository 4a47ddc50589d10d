import {
  deserializeMessage,
  serializeMessage,
  type JSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import { messageOf } from "acp-terminal/internal";

/** The largest message (one line) read; the SDK's own stdio limit. */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Bytes of an oversized line kept to find its `id` in (clients write `id` before `params`). */
const HEAD_BYTES = 4096;

/**
 * MCP over this process's stdin/stdout, one JSON-RPC message per line, as the SDK's
 * `StdioServerTransport` except for a line over `maxMessageBytes`: the SDK's transport clears its
 * buffer and closes, leaving the server up but deaf (no later call, `tools/list` included, is
 * answered). Here such a line is skipped as it streams in, keeping only its head in memory, and
 * answered with an error of its own (when its id can be read); the next line is served as usual.
 */
export class LineStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while skipping an oversized line: its head and its length so far. */
  private oversized: { head: Buffer; bytes: number } | undefined;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxMessageBytes = MAX_STDIO_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
    this.stdin.on("end", this.onEnd);
    this.stdin.on("close", this.onEnd);
    this.stdout.on("error", this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) {
      return Promise.reject(new Error("the stdio transport is closed"));
    }
    return new Promise((resolve, reject) => {
      const ok = this.stdout.write(serializeMessage(message), (error) =>
        error ? reject(error) : undefined,
      );
      if (ok) {
        resolve();
      } else {
        this.stdout.once("drain", () => resolve());
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("close", this.onEnd);
    this.stdout.off("error", this.onStreamError);
    this.chunks = [];
    this.onclose?.();
  }

  private readonly onEnd = (): void => void this.close();

  private readonly onStreamError = (error: Error): void => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    for (;;) {
      const newline = data.indexOf(10);
      if (newline === -1) {
        this.take(data);
        return;
      }
      this.take(data.subarray(0, newline));
      this.endLine();
      data = data.subarray(newline + 1);
    }
  };

  /** Part of the current line: kept, or (past the limit) counted with only the head kept. */
  private take(part: Buffer): void {
    if (part.length === 0) {
      return;
    }
    if (this.oversized) {
      this.oversized.bytes += part.length;
      return;
    }
    if (this.pendingBytes + part.length <= this.maxMessageBytes) {
      // A copy: the stream may reuse the chunk's memory.
      this.chunks.push(Buffer.from(part));
      this.pendingBytes += part.length;
      return;
    }
    const head = Buffer.concat([...this.chunks, part]).subarray(0, HEAD_BYTES);
    this.oversized = { head: Buffer.from(head), bytes: this.pendingBytes + part.length };
    this.chunks = [];
    this.pendingBytes = 0;
  }

  private endLine(): void {
    if (this.oversized) {
      const { head, bytes } = this.oversized;
      this.oversized = undefined;
      this.refuseOversized(head, bytes);
      return;
    }
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.pendingBytes = 0;
    if (line.trim() === "") {
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(new Error(`unreadable message on stdin skipped: ${messageOf(error)}`));
      return;
    }
    this.onmessage?.(message);
  }

  private refuseOversized(head: Buffer, bytes: number): void {
    const text = head.toString("utf8");
    this.onerror?.(
      new Error(`a ${bytes}-byte message on stdin was skipped (limit ${this.maxMessageBytes})`),
    );
    const id = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})\s*[,}]/.exec(text)?.[1];
    if (id === undefined || !/"method"\s*:/.test(text)) {
      return; // a notification or a response: nothing to answer
    }
    void this.send({
      jsonrpc: "2.0",
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- a JSON string or integer literal matched above
      id: JSON.parse(id) as string | number,
      error: {
        code: -32600,
        message: `Message too large: ${bytes} bytes, over this server's limit of ${this.maxMessageBytes} bytes for one message; nothing was done. Send less at once (put large input in a file in the workspace).`,
      },
    }).catch((error: unknown) => this.onerror?.(new Error(messageOf(error))));
  }
}
