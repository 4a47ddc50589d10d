/**
 * What a line of JSON-RPC is, read as cheaply as the proxy can afford for bytes it mostly passes
 * on unchanged: a line up to PARSE_BYTES is parsed; a longer one (a flood's chunk, a big
 * `terminal/output`) is only walked for its top-level `id`, `method`, `result` and `error`, its
 * strings skipped with a native search and nothing decoded, and parsed only by whoever must read
 * it whole (`parseLine`).
 */

import { stringEnd } from "../readers/line-scan.js";
import { isRecord, type RpcId } from "./json-rpc.js";

export type { RpcId } from "./json-rpc.js";

/** Bytes of a line parsed whole when read. */
export const PARSE_BYTES = 64 * 1024;
/** Characters of an id or a method name the proxy follows: a longer one is refused as invalid. */
export const MAX_NAME_CHARS = 1024;

export type WireMessage =
  | { kind: "request"; id: string | number; method: string; value?: Record<string, unknown> }
  | { kind: "notification"; method: string; value?: Record<string, unknown> }
  | { kind: "response"; id: RpcId; value?: Record<string, unknown> }
  /** Not JSON-RPC: answered with `error` (and `id` when one could be read). */
  | { kind: "invalid"; id: RpcId; error: { code: number; message: string } }
  | { kind: "empty" };

const QUOTE = 0x22;

const invalid = (message: string, id: RpcId = null): WireMessage => ({
  kind: "invalid",
  id,
  error: { code: -32600, message: `Invalid Request: ${message}` },
});

/** What `line` is (a view, valid during the call: nothing returned refers to it). */
export function readWireMessage(line: Buffer): WireMessage {
  let start = 0;
  let end = line.byteLength;
  while (start < end && isSpace(line[start]!)) {
    start++;
  }
  while (end > start && isSpace(line[end - 1]!)) {
    end--;
  }
  if (start === end) {
    return { kind: "empty" };
  }
  if (end - start > PARSE_BYTES) {
    return fromFields(scanTopLevel(line, start, end));
  }
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8", start, end));
  } catch {
    return { kind: "invalid", id: null, error: { code: -32700, message: "Parse error" } };
  }
  if (!isRecord(value)) {
    return invalid(
      Array.isArray(value) ? "batches are not part of ACP" : "a message is a JSON object",
    );
  }
  const fields: TopLevel = {
    hasId: "id" in value,
    id: value["id"],
    hasMethod: "method" in value,
    method: value["method"],
    answered: "result" in value || "error" in value,
  };
  const message = fromFields(fields);
  return message.kind === "invalid" || message.kind === "empty" ? message : { ...message, value };
}

/** The whole message of a line read without its value (a long one), or undefined when it is not an object. */
export function parseLine(line: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line.toString("utf8"));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

interface TopLevel {
  hasId: boolean;
  id: unknown;
  hasMethod: boolean;
  method: unknown;
  answered: boolean;
  /** Why the walk could not read the line's structure. */
  broken?: string;
}

function fromFields(fields: TopLevel): WireMessage {
  if (fields.broken !== undefined) {
    return { kind: "invalid", id: null, error: { code: -32700, message: fields.broken } };
  }
  const { id } = fields;
  const knownId: RpcId | undefined = !fields.hasId
    ? null
    : id === null ||
        typeof id === "number" ||
        (typeof id === "string" && id.length <= MAX_NAME_CHARS)
      ? id
      : undefined;
  if (knownId === undefined) {
    return invalid(`id must be a string of at most ${MAX_NAME_CHARS} characters, a number or null`);
  }
  if (fields.hasMethod) {
    const { method } = fields;
    if (typeof method !== "string" || method.length > MAX_NAME_CHARS) {
      return invalid(`method must be a string of at most ${MAX_NAME_CHARS} characters`, knownId);
    }
    if (!fields.hasId) {
      return { kind: "notification", method };
    }
    if (knownId === null) {
      return invalid("a request's id is a string or a number");
    }
    return { kind: "request", id: knownId, method };
  }
  if (fields.hasId && fields.answered) {
    return { kind: "response", id: knownId };
  }
  return invalid(
    "neither a request (method), a notification, nor a response (id with result or error)",
    knownId,
  );
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

/** A small JSON value's text (an id, a method), parsed; `broken` when it is not JSON. */
function smallValue(line: Buffer, start: number, end: number): { value: unknown } | undefined {
  if (end - start > MAX_NAME_CHARS + 2) {
    return { value: undefined };
  }
  try {
    return { value: JSON.parse(line.toString("utf8", start, end)) };
  } catch {
    return undefined;
  }
}

/**
 * The top-level fields of a long line, walked without decoding it: strings are skipped by
 * searching for their closing quote, nested values by counting brackets outside strings. The
 * values of `id` and `method` (small) are parsed; a structure that does not close is `broken`.
 */
function scanTopLevel(line: Buffer, start: number, end: number): TopLevel {
  const fields: TopLevel = {
    hasId: false,
    id: undefined,
    hasMethod: false,
    method: undefined,
    answered: false,
  };
  if (line[start] !== 0x7b || line[end - 1] !== 0x7d) {
    return { ...fields, broken: "Parse error: a message is a JSON object on one line" };
  }
  let depth = 0;
  let key: string | undefined;
  let expectKey = false;
  let valueStart = -1;
  for (let i = start; i < end; i++) {
    const byte = line[i]!;
    if (byte === QUOTE) {
      const close = stringEnd(line, i + 1);
      if (close === -1 || close >= end) {
        return { ...fields, broken: "Parse error: a string does not end" };
      }
      if (depth === 1 && expectKey) {
        key = line.toString("utf8", i + 1, Math.min(close, i + 1 + MAX_NAME_CHARS));
        expectKey = false;
      } else if (depth === 1 && valueStart === -1) {
        valueStart = i;
      }
      i = close;
    } else if (byte === 0x3a && depth === 1) {
      valueStart = -1;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (depth === 1 && valueStart === -1) {
        valueStart = i;
      }
      depth++;
      expectKey = byte === 0x7b && depth === 1;
    } else if (byte === 0x7d || byte === 0x5d || (byte === 0x2c && depth === 1)) {
      if (depth === 1 && key !== undefined) {
        const value = valueStart === -1 ? undefined : { from: valueStart, to: i };
        if (!record(fields, key, line, value, i)) {
          return { ...fields, broken: "Parse error: a top-level value is not JSON" };
        }
        key = undefined;
      }
      if (depth === 1) {
        valueStart = -1; // a nested value's start stays until its field is recorded
      }
      if (byte !== 0x2c) {
        depth--;
      }
      expectKey = byte === 0x2c && depth === 1;
    } else if (depth === 1 && valueStart === -1 && !isSpace(byte) && key !== undefined) {
      valueStart = i;
    }
  }
  return depth === 0 ? fields : { ...fields, broken: "Parse error: the message does not close" };
}

/** Records a top-level field whose value spans `value` (up to the comma or brace at `at`). */
function record(
  fields: TopLevel,
  key: string,
  line: Buffer,
  value: { from: number; to: number } | undefined,
  at: number,
): boolean {
  if (key === "result" || key === "error") {
    fields.answered = true;
    return true;
  }
  if (key !== "id" && key !== "method") {
    return true;
  }
  if (value === undefined) {
    return false;
  }
  let to = Math.min(value.to, at);
  while (to > value.from && isSpace(line[to - 1]!)) {
    to--;
  }
  const parsed = smallValue(line, value.from, to);
  if (parsed === undefined) {
    return false;
  }
  if (key === "id") {
    fields.hasId = true;
    fields.id = parsed.value;
  } else {
    fields.hasMethod = true;
    fields.method = parsed.value;
  }
  return true;
}
