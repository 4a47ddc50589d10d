/**
 * A message to the agent as the bytes of its JSON line, in pieces of at most about PIECE_BYTES.
 * Most messages are one piece. An answer with a long string in its `result` (a megabyte of
 * `terminal/output`, a file read) is escaped a slice at a time, straight into one reused buffer:
 * `JSON.stringify` of the whole message makes a string up to six times the output (a control
 * byte is `\u0000`), then its line and its bytes, each as large again, ~20 MB of garbage per
 * megabyte answered that V8 collects late, and that grows its young generation for good. Sliced
 * into one reused buffer, an answer makes no garbage in proportion to its size.
 */

import { ASCII_ESCAPES, HEX_DIGITS } from "../json-escapes.js";

/** A string in `result` this long (UTF-16 units) or longer is written a slice at a time. */
export const LONG_STRING_UNITS = 64 * 1024;
/** UTF-16 units of the long string escaped into one piece (at most six bytes each). */
const SLICE_UNITS = 16 * 1024;

const encoder = new TextEncoder();
/** The buffer long strings are escaped into, reused from piece to piece. */
let piece = new Uint8Array(6 * SLICE_UNITS + 16);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The message's `result` and the key of a long string property of it, if it has one. */
function longString(
  message: unknown,
): { message: Record<string, unknown>; result: Record<string, unknown>; key: string } | undefined {
  const result: unknown = isRecord(message) ? message.result : undefined;
  if (!isRecord(message) || !isRecord(result)) {
    return undefined;
  }
  const key = Object.keys(result).find((name) => {
    const value = result[name];
    return typeof value === "string" && value.length >= LONG_STRING_UNITS;
  });
  return key === undefined ? undefined : { message, result, key };
}

/**
 * `text[start, end)` as the inside of a JSON string, as `JSON.stringify` escapes it (a lone
 * surrogate as `\\uDXXX`), in UTF-8 into `into`; returns the bytes written. `into` holds six bytes
 * a unit.
 */
function escapeInto(text: string, start: number, end: number, into: Uint8Array): number {
  let at = 0;
  // No closure nor array per unit: a megabyte of control bytes is a million of them.
  const hex = (unit: number) => {
    into[at] = 0x5c;
    into[at + 1] = 0x75;
    into[at + 2] = HEX_DIGITS[(unit >> 12) & 15]!;
    into[at + 3] = HEX_DIGITS[(unit >> 8) & 15]!;
    into[at + 4] = HEX_DIGITS[(unit >> 4) & 15]!;
    into[at + 5] = HEX_DIGITS[unit & 15]!;
    at += 6;
  };
  for (let i = start; i < end; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      const escape = ASCII_ESCAPES[unit]!;
      if (escape === 0) {
        into[at++] = unit;
      } else if (escape === 0xff) {
        hex(unit);
      } else {
        into[at++] = 0x5c;
        into[at++] = escape;
      }
    } else if (unit < 0x800) {
      into[at++] = 0xc0 | (unit >> 6);
      into[at++] = 0x80 | (unit & 0x3f);
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = i + 1 < end ? text.charCodeAt(i + 1) : 0;
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const point = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
        into[at++] = 0xf0 | (point >> 18);
        into[at++] = 0x80 | ((point >> 12) & 0x3f);
        into[at++] = 0x80 | ((point >> 6) & 0x3f);
        into[at++] = 0x80 | (point & 0x3f);
        i++;
      } else {
        hex(unit); // a lone surrogate, as JSON.stringify writes it
      }
    } else {
      into[at++] = 0xe0 | (unit >> 12);
      into[at++] = 0x80 | ((unit >> 6) & 0x3f);
      into[at++] = 0x80 | (unit & 0x3f);
    }
  }
  return at;
}

/** The end of a slice from `start`: SLICE_UNITS on, moved back so a surrogate pair stays whole. */
function sliceEnd(text: string, start: number): number {
  const end = Math.min(text.length, start + SLICE_UNITS);
  const unit = text.charCodeAt(end - 1);
  return end < text.length && unit >= 0xd800 && unit <= 0xdbff ? end - 1 : end;
}

/** A piece of a line; `reused`: a view of a buffer the next piece is escaped into. */
export interface LinePiece {
  bytes: Uint8Array;
  reused: boolean;
}

/**
 * The line of `message` (with its newline), in one piece, or, for an answer with a long string,
 * in pieces that are views of one reused buffer (`reused`): each valid until the next is asked for.
 */
export function* messageLine(message: unknown): Generator<LinePiece> {
  const long = longString(message);
  if (long === undefined) {
    yield { bytes: encoder.encode(`${JSON.stringify(message)}\n`), reused: false };
    return;
  }
  const { result, key } = long;
  const envelope = JSON.stringify({ ...long.message, result: undefined });
  let head = `${envelope.slice(0, -1)}${envelope === "{}" ? "" : ","}"result":{`;
  let first = true;
  for (const [name, value] of Object.entries(result)) {
    if (name !== key || typeof value !== "string") {
      const json: string | undefined = JSON.stringify(value);
      if (json !== undefined) {
        head += `${first ? "" : ","}${JSON.stringify(name)}:${json}`;
        first = false;
      }
      continue; // JSON.stringify leaves out undefined and functions, as here
    }
    head += `${first ? "" : ","}${JSON.stringify(name)}:`;
    first = false;
    yield { bytes: encoder.encode(`${head}"`), reused: true };
    head = "";
    const text = value;
    for (let start = 0; start < text.length;) {
      const end = sliceEnd(text, start);
      if (piece.byteLength < 6 * (end - start)) {
        piece = new Uint8Array(6 * (end - start));
      }
      yield { bytes: piece.subarray(0, escapeInto(text, start, end, piece)), reused: true };
      start = end;
    }
    head = '"';
  }
  yield { bytes: encoder.encode(`${head}}}\n`), reused: true };
}
