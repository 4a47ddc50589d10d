/**
 * A v2 `terminal_output_chunk` notification read from its line's bytes without decoding its data
 * into a string: the line is scanned for the span of `params.update.data`, the rest of the line
 * (without that span) is parsed by JSON.parse and checked for the notification's exact shape,
 * and the span is decoded from base64 straight into bytes. A flood of chunks then leaves almost
 * nothing for the garbage collector (a 64 KiB chunk is an 87 KB string twice over otherwise:
 * enough to make V8 grow its young generation by tens of MB). Anything that is not exactly such
 * a notification (another shape, escapes or invalid base64 in the data, bad JSON) is not read
 * here: undefined sends the line the ordinary way.
 */

import { keyPath, stringSpan, withoutSpan } from "./line-scan.js";
import { decodeBase64 } from "./wire-bytes.js";

export interface ChunkLine {
  sessionId: string;
  terminalId: string;
  bytes: Uint8Array;
}

const MARKER = Buffer.from('"terminal_output_chunk"');
const DATA_PATH = keyPath("params", "update", "data");

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

/**
 * The notification on `line`, or undefined; its bytes are decoded into `scratch` when it is big
 * enough (then they are a view of it, valid until the next call), else into a new array.
 */
export function readChunkLine(line: Buffer, scratch?: Uint8Array): ChunkLine | undefined {
  if (line.indexOf(MARKER) === -1) {
    return undefined;
  }
  const span = stringSpan(line, DATA_PATH, false);
  if (span === undefined) {
    return undefined;
  }
  const bytes = decodeBase64(line, span.start, span.end, scratch);
  const envelope = bytes === undefined ? undefined : withoutSpan(line, span);
  if (bytes === undefined || envelope === undefined) {
    return undefined;
  }
  const params = field(envelope, "params");
  const update = field(params, "update");
  const sessionId = field(params, "sessionId");
  const terminalId = field(update, "terminalId");
  if (
    field(envelope, "jsonrpc") !== "2.0" ||
    field(envelope, "method") !== "session/update" ||
    (typeof envelope === "object" && envelope !== null && "id" in envelope) ||
    field(update, "sessionUpdate") !== "terminal_output_chunk" ||
    field(update, "data") !== "" ||
    typeof sessionId !== "string" ||
    typeof terminalId !== "string"
  ) {
    return undefined;
  }
  return { sessionId, terminalId, bytes };
}
