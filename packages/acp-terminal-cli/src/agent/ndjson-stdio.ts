import { Writable, type Readable } from "node:stream";
import { readPipe } from "acp-terminal/internal";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { FirstLineSniffer } from "./first-line-sniffer.js";
import { LineSplitter } from "./line-splitter.js";
import { messageLine } from "./message-lines.js";
import { RequestsInFlight } from "./requests-in-flight.js";

/** The longest message read, as the SDK's own transport bounds it (32 MiB). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Messages parsed ahead of the reader before the agent's stdout is paused. */
const READ_AHEAD_MESSAGES = 16;
/**
 * Messages to the agent waiting to be written (its stdin's pipe is full: it does not read), past
 * which the agent is not read either: it gets no answers it does not take.
 */
const MAX_UNWRITTEN_MESSAGES = 64;

const PARSE_ERROR = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };

/** Who may take a line before it is parsed (a driver's fast lane for the bulk of its bytes). */
export interface LineTap {
  /** Takes the line (true: it is not parsed, nor passed on). */
  take(line: Buffer): boolean;
  /** A message parsed and passed on. */
  passed(message: unknown): void;
}

/** The agent's stdio as messages, and where a tap is put in front of the parser. */
export interface TappableStream extends Stream {
  tap(tap: LineTap): void;
}

/**
 * The agent's stdio as a stream of JSON-RPC messages, one JSON value a line, like the SDK's
 * `ndJsonStream` but cheaper for the bulk of a session's bytes (a v2 flood is 140 MB of JSON):
 * stdout is read into one reused buffer (acp-terminal's `readPipe`, as the host reads its
 * terminals) and split into lines (`LineSplitter`), then decoded and parsed (a tap sees it
 * first, and must not keep it); stdout is paused while READ_AHEAD_MESSAGES wait
 * unread. Every value parsed goes on (the SDK's connection answers batches and non-objects); a
 * line that is not JSON is answered with a parse error; a line over MAX_MESSAGE_BYTES errors the
 * stream, as the SDK's does. A tap (`tap`) may take lines before they are parsed. A message is
 * written as its line's pieces (`messageLine`: a long string in an answer, escaped a slice at a
 * time), one message after another. At most MAX_REQUESTS_IN_FLIGHT of the agent's requests are
 * handled at once; past that a request is answered at once with an error saying why
 * (requests-in-flight.ts). While more than MAX_UNWRITTEN_MESSAGES wait to be written (the agent
 * does not read its stdin), the agent is not read either. Unlike `Readable.toWeb`, a cancel (the connection closed, say on
 * EPIPE to an agent that already exited) does not destroy stdout: it keeps draining, so the
 * sniffer still learns what the agent printed.
 */
export function ndJsonStdio(
  stdin: Writable,
  stdout: Readable,
  sniffer: FirstLineSniffer,
): TappableStream {
  const writer = (Writable.toWeb(stdin) as WritableStream<Uint8Array>).getWriter();
  let lineTap: LineTap | undefined;
  /**
   * One message's line. A long answer's pieces are escaped into one reused buffer: each is
   * written to stdin itself and waited for until written (its callback), since stdin keeps a
   * view of what it buffers; what went through the writer before is in stdin's queue already.
   * Lines are written one after the other (`send` queues them): pieces must not interleave.
   */
  const writeLine = async (message: unknown) => {
    const pieces = messageLine(message);
    const first = pieces.next();
    if (first.done === true) {
      return;
    }
    if (!first.value.reused) {
      await writer.write(first.value.bytes);
      return;
    }
    const write = (bytes: Uint8Array) =>
      new Promise<void>((resolve, reject) =>
        stdin.write(bytes, (error) => (error ? reject(error) : resolve())),
      );
    await write(first.value.bytes);
    for (const { bytes } of pieces) {
      await write(bytes);
    }
  };
  const inFlight = new RequestsInFlight();
  let writing: Promise<unknown> = Promise.resolve();
  /** Messages handed on and not written yet. */
  let queued = 0;
  let writeFailure: unknown;
  /** The agent's stdout is paused until it reads what was written to it (see readMore). */
  let waitingForReader = false;
  let readDesired = () => true;
  /** The agent takes what is written to it: go on reading it. */
  const readMore = () => queued <= MAX_UNWRITTEN_MESSAGES;
  const send = (message: unknown): Promise<void> => {
    queued++;
    const written = writing.then(() => writeLine(message));
    writing = written.catch(() => undefined);
    return written.then(
      () => {
        queued--;
        if (waitingForReader && readMore()) {
          waitingForReader = false;
          if (readDesired()) {
            source?.resume();
          }
        }
      },
      (error: unknown) => {
        queued--;
        writeFailure ??= error;
        throw error;
      },
    );
  };
  let cancelled = false;
  let source: Readable | undefined;
  const readable = new ReadableStream<AnyMessage>(
    {
      start(controller) {
        readDesired = () => (controller.desiredSize ?? 1) > 0;
        const line = (bytes: Buffer) => {
          if (cancelled || lineTap?.take(bytes) === true) {
            return;
          }
          const text = bytes.toString("utf8").trim();
          if (text === "") {
            return;
          }
          let message: unknown;
          try {
            message = JSON.parse(text);
          } catch {
            send(PARSE_ERROR).catch(() => undefined); // the agent is gone: its exit says so
            return;
          }
          const refusal = inFlight.received(message);
          if (refusal !== undefined) {
            send(refusal).catch(() => undefined); // the agent is gone: its exit says so
            return;
          }
          // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- a parsed value goes on as the SDK's own transport passes it: its connection checks each message's shape
          controller.enqueue(message as AnyMessage);
          lineTap?.passed(message);
        };
        const tooLarge = () => {
          cancelled = true;
          controller.error(
            new Error(`Incoming ACP data exceeds the configured ${MAX_MESSAGE_BYTES} byte limit`),
          );
        };
        const lines = new LineSplitter(MAX_MESSAGE_BYTES, line, tooLarge);
        const onChunk = (chunk: Uint8Array): boolean => {
          sniffer.push(chunk);
          if (cancelled) {
            return true; // drained unread: the sniffer still learns what the agent printed
          }
          lines.push(chunk);
          if (cancelled) {
            return true;
          }
          if (!readMore()) {
            waitingForReader = true;
            return false;
          }
          return readDesired();
        };
        source = readPipe(stdout, onChunk);
        source.once("end", () => {
          sniffer.end();
          if (!cancelled) {
            lines.end();
            controller.close();
          }
        });
        source.once("error", (error) => {
          if (!cancelled) {
            controller.error(error);
          }
        });
      },
      pull() {
        if (!waitingForReader) {
          source?.resume();
        }
      },
      cancel() {
        cancelled = true;
        source?.resume();
      },
    },
    { highWaterMark: READ_AHEAD_MESSAGES },
  );
  // A message is handed on at once, not after the one before was written: answers wait here,
  // counted (past MAX_UNWRITTEN_MESSAGES the agent is not read), not in the SDK's own queue.
  const writable = new WritableStream<AnyMessage>({
    write: (message) => {
      if (writeFailure !== undefined) {
        throw writeFailure;
      }
      inFlight.sent(message);
      send(message).catch(() => undefined); // kept in writeFailure: the next write fails with it
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return {
    readable,
    writable,
    tap: (tap) => {
      lineTap = tap;
    },
  };
}
