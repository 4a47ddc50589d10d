import { setFlagsFromString } from "node:v8";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { LineTap } from "../agent/ndjson-stdio.js";
import { readChunkLine } from "./chunk-line.js";

/** Bytes of the decode buffer: a 64 KiB chunk (a larger one gets an array of its own). */
const SCRATCH_BYTES = 96 * 1024;

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

/**
 * A fast lane for the bulk of a v2 session's bytes: `terminal_output_chunk` notifications are
 * applied as they are read, instead of going through the SDK's dispatch (its v2 schema parse of a
 * session update costs ~0.4 ms a message, and its update queue holds what the view has not taken
 * yet). Order is kept: a chunk takes the lane only when every `session/update` handed to the SDK
 * before it has been read back by the driver (`delivered`); otherwise it goes the SDK's way,
 * behind them. A chunk is taken only in its exact shape (a string terminal id and data, the
 * session's id); anything else goes the SDK's way, parsed as before.
 */
export class ChunkLane {
  /** `session/update` notifications handed to the SDK and not read back yet. */
  #pending = 0;
  /** Where a chunk's bytes are decoded (applied before the next line: the terminal copies them). */
  readonly #scratch = new Uint8Array(SCRATCH_BYTES);

  constructor(
    private readonly sessionId: () => string | undefined,
    private readonly apply: (terminalId: string, data: string | Uint8Array) => void,
  ) {
    // The chunks' base64 is decoded natively through short strings (wire-bytes.ts): ~1.3 bytes
    // of young garbage per byte of output. V8 would grow its young generation to two 16 MiB
    // semi-spaces for it (+26 MB of RSS through 100 MiB); kept at its first size it costs a few
    // more, quick scavenges. Read by V8 at each collection, so it applies from here on.
    setFlagsFromString("--semi-space-growth-factor=1");
  }

  /**
   * The lane at the line level, for an agent process's stdout: a chunk is taken from its bytes
   * (`readChunkLine`: its data never becomes a string), the same order kept.
   */
  readonly lineTap: LineTap = {
    take: (line) => {
      const sessionId = this.sessionId();
      if (this.#pending > 0 || sessionId === undefined) {
        return false;
      }
      const chunk = readChunkLine(line, this.#scratch);
      if (chunk === undefined || chunk.sessionId !== sessionId) {
        return false;
      }
      this.apply(chunk.terminalId, chunk.bytes);
      return true;
    },
    passed: (message) => {
      if (field(message, "method") === "session/update" && field(message, "id") === undefined) {
        this.#pending++;
      }
    },
  };

  /** The agent's stream with the lane in front of the SDK's reader. */
  wrap(stream: Stream): Stream {
    const lane = new TransformStream<AnyMessage, AnyMessage>({
      transform: (message, controller) => {
        if (!this.#take(message)) {
          controller.enqueue(message);
        }
      },
    });
    return { readable: stream.readable.pipeThrough(lane), writable: stream.writable };
  }

  /** The driver read one session update back from the SDK. */
  delivered(): void {
    this.#pending = Math.max(0, this.#pending - 1);
  }

  #take(message: AnyMessage): boolean {
    if (!("method" in message) || message.method !== "session/update" || "id" in message) {
      return false;
    }
    const params: unknown = message.params;
    const update = field(params, "update");
    const terminalId = field(update, "terminalId");
    const data = field(update, "data");
    const sessionId = this.sessionId();
    if (
      this.#pending > 0 ||
      sessionId === undefined ||
      field(params, "sessionId") !== sessionId ||
      field(update, "sessionUpdate") !== "terminal_output_chunk" ||
      typeof terminalId !== "string" ||
      typeof data !== "string"
    ) {
      this.#pending++;
      return false;
    }
    this.apply(terminalId, data);
    return true;
  }
}
