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

export interface ChunkLine {
  sessionId: string;
  terminalId: string;
  bytes: Uint8Array;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MARKER = Buffer.from('"terminal_output_chunk"');
const DATA_PATH = keyPath("params", "update", "data");

/** base64 alphabet values; -1 for any other byte. */
const BASE64 = new Int16Array(256).fill(-1);
for (const [i, c] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries()) {
  BASE64[c.charCodeAt(0)] = i;
}

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

/**
 * The byte span (between its quotes) of the string value at `path` (the keys from the outermost
 * object: `keyPath("params", "update", "data")`), found by walking the line's structure: strings
 * are skipped with indexOf and keys compared as bytes (an escaped key never matches), so the value
 * costs a native scan, and nothing is allocated but the walk's two stacks. Undefined when there
 * is no such string, or two, or it holds an escape and `escapes` is false.
 */
export function stringSpan(
  line: Buffer,
  path: readonly Buffer[],
  escapes: boolean,
): { start: number; end: number } | undefined {
  /**
   * Per open container: how many of `path`'s keys lead to it (-1: it is off the path), and
   * whether it is an object. The outermost object leads to none.
   */
  const matched: number[] = [];
  const objects: boolean[] = [];
  let expectKey = false;
  /** The key just read leads on along the path (its value is the next container or the string). */
  let onPath = false;
  let found: { start: number; end: number } | undefined;
  for (let i = 0; i < line.length; i++) {
    const byte = line[i]!;
    if (byte === QUOTE) {
      const end = stringEnd(line, i + 1);
      if (end === -1) {
        return undefined;
      }
      const depth = matched.length > 0 ? matched[matched.length - 1]! : -1;
      if (expectKey) {
        const segment = depth >= 0 && depth < path.length ? path[depth] : undefined;
        onPath = segment !== undefined && line.compare(segment, 0, segment.length, i + 1, end) === 0;
        expectKey = false;
      } else if (onPath && depth === path.length - 1) {
        const escaped = line.indexOf(BACKSLASH, i + 1);
        if ((!escapes && escaped !== -1 && escaped < end) || found !== undefined) {
          return undefined;
        }
        found = { start: i + 1, end };
        onPath = false;
      }
      i = end;
    } else if (byte === 0x7b || byte === 0x5b) {
      // { or [
      const parent = matched.length > 0 ? matched[matched.length - 1]! : -1;
      matched.push(matched.length === 0 ? 0 : onPath && byte === 0x7b ? parent + 1 : -1);
      objects.push(byte === 0x7b);
      onPath = false;
      expectKey = byte === 0x7b;
    } else if (byte === 0x7d || byte === 0x5d) {
      // } ]
      matched.pop();
      objects.pop();
      onPath = false;
    } else if (byte === 0x2c) {
      // ,
      onPath = false;
      expectKey = objects[objects.length - 1] === true;
    }
  }
  return found;
}

/** A key path as `stringSpan` takes it: `["params", "update", "data"]`. */
export function keyPath(...keys: string[]): readonly Buffer[] {
  return keys.map((key) => Buffer.from(key));
}

/** The line parsed with the span's string emptied (small: the bulk is not decoded), or undefined. */
export function withoutSpan(line: Buffer, span: { start: number; end: number }): object | undefined {
  try {
    const value: unknown = JSON.parse(
      Buffer.concat([line.subarray(0, span.start), line.subarray(span.end)]).toString("utf8"),
    );
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A JSON string's contents (between its quotes) decoded into UTF-8 bytes, as `Buffer.from` of
 * the parsed string would give them (a lone surrogate escape becomes U+FFFD), into `scratch`
 * when it is big enough; undefined for an invalid escape or a control character.
 */
export function jsonStringBytes(
  line: Buffer,
  start: number,
  end: number,
  scratch: Uint8Array | undefined,
): Uint8Array | undefined {
  // Never longer than the escaped text: \uXXXX (6 bytes) is at most 3 bytes, or 6 for a pair.
  const out =
    scratch !== undefined && scratch.byteLength >= end - start
      ? scratch
      : new Uint8Array(end - start);
  let o = 0;
  let i = start;
  // A byte at a time, allocating nothing (a chunk of text lines has an escape a line).
  while (i < end) {
    const byte = line[i]!;
    if (byte !== BACKSLASH) {
      if (byte < 0x20) {
        return undefined;
      }
      out[o++] = byte;
      i++;
      continue;
    }
    const escape = line[i + 1];
    const simple = escape === undefined ? undefined : ESCAPES.get(escape);
    if (simple !== undefined) {
      out[o++] = simple;
      i += 2;
      continue;
    }
    if (escape !== 0x75 || i + 6 > end) {
      return undefined;
    }
    let code = hex4(line, i + 2);
    i += 6;
    if (code < 0) {
      return undefined;
    }
    if (code >= 0xd800 && code <= 0xdbff && line[i] === BACKSLASH && line[i + 1] === 0x75 && i + 6 <= end) {
      const low = hex4(line, i + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i += 6;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      code = 0xfffd;
    }
    o += utf8(code, out, o);
  }
  return out.subarray(0, o);
}

const ESCAPES = new Map<number, number>([
  [0x22, 0x22],
  [0x5c, 0x5c],
  [0x2f, 0x2f],
  [0x62, 0x08],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
]);

function hex4(line: Buffer, at: number): number {
  let value = 0;
  for (let k = at; k < at + 4; k++) {
    const c = line[k]!;
    const digit =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (digit < 0) {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

/** Writes a code point as UTF-8 at `at`; returns the bytes written. */
function utf8(code: number, out: Uint8Array, at: number): number {
  if (code < 0x80) {
    out[at] = code;
    return 1;
  }
  if (code < 0x800) {
    out[at] = 0xc0 | (code >> 6);
    out[at + 1] = 0x80 | (code & 63);
    return 2;
  }
  if (code < 0x10000) {
    out[at] = 0xe0 | (code >> 12);
    out[at + 1] = 0x80 | ((code >> 6) & 63);
    out[at + 2] = 0x80 | (code & 63);
    return 3;
  }
  out[at] = 0xf0 | (code >> 18);
  out[at + 1] = 0x80 | ((code >> 12) & 63);
  out[at + 2] = 0x80 | ((code >> 6) & 63);
  out[at + 3] = 0x80 | (code & 63);
  return 4;
}

/** The index of the quote that ends the string whose contents start at `from`, or -1. */
function stringEnd(line: Buffer, from: number): number {
  let at = line.indexOf(QUOTE, from);
  while (at !== -1) {
    let backslashes = 0;
    for (let j = at - 1; j >= from && line[j] === BACKSLASH; j--) {
      backslashes++;
    }
    if (backslashes % 2 === 0) {
      return at;
    }
    at = line.indexOf(QUOTE, at + 1);
  }
  return -1;
}

/** Strict base64 (padding only at the end) decoded into bytes; undefined for anything else. */
function decodeBase64(
  line: Buffer,
  start: number,
  end: number,
  scratch: Uint8Array | undefined,
): Uint8Array | undefined {
  let last = end;
  while (last > start && line[last - 1] === 0x3d) {
    last--;
  }
  const length = last - start;
  if (end - last > 2 || (end - start) % 4 !== 0 || length % 4 === 1) {
    return undefined;
  }
  const size = Math.floor((length * 3) / 4);
  const out =
    scratch !== undefined && scratch.byteLength >= size
      ? scratch.subarray(0, size)
      : new Uint8Array(size);
  let o = 0;
  let i = start;
  for (; i + 4 <= last; i += 4) {
    const a = BASE64[line[i]!]!;
    const b = BASE64[line[i + 1]!]!;
    const c = BASE64[line[i + 2]!]!;
    const d = BASE64[line[i + 3]!]!;
    if ((a | b | c | d) < 0) {
      return undefined;
    }
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  const rest = last - i;
  if (rest >= 2) {
    const a = BASE64[line[i]!]!;
    const b = BASE64[line[i + 1]!]!;
    if ((a | b) < 0) {
      return undefined;
    }
    out[o++] = (a << 2) | (b >> 4);
    if (rest === 3) {
      const c = BASE64[line[i + 2]!]!;
      if (c < 0) {
        return undefined;
      }
      out[o++] = ((b & 15) << 4) | (c >> 2);
    }
  }
  return o === out.length ? out : undefined;
}
