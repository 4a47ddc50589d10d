// `--json` output lines built as bytes: a terminal's output escaped straight into a reusable line
// buffer as a JSON string, invalid UTF-8 replaced as TextDecoder replaces it, without making a
// string of the output or of its JSON.

import { ASCII_ESCAPES, HEX_DIGITS } from "../json-escapes.js";

/** A line buffer is at least this large, so that short lines reuse one too. */
const MIN_LINE_BUFFER_BYTES = 64 * 1024;

/**
 * The bytes of a valid UTF-8 character starting at `at` (2 to 4), or how many bytes make the
 * invalid sequence there, negated (-1 to -3), which becomes one U+FFFD: the WHATWG decoder's
 * maximal-subpart rule, so the result is what TextDecoder gives.
 */
function utf8Length(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  let length = 0;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    low = lead === 0xe0 ? 0xa0 : 0x80;
    high = lead === 0xed ? 0x9f : 0xbf;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    low = lead === 0xf0 ? 0x90 : 0x80;
    high = lead === 0xf4 ? 0x8f : 0xbf;
  } else {
    return -1;
  }
  for (let i = 1; i < length; i++) {
    const next = at + i < bytes.length ? bytes[at + i]! : -1;
    if (next < (i === 1 ? low : 0x80) || next > (i === 1 ? high : 0xbf)) {
      return -i;
    }
  }
  return length;
}

/**
 * `head`, then the UTF-8 `bytes` as a JSON string (the bytes `JSON.stringify(new
 * TextDecoder().decode(bytes))` encodes to, without making either string), then `tail`, in
 * `reuse` when it is large enough for the worst case (every byte escaped to 6), else in a new
 * buffer of its own (its `buffer` is all of it: it can be reused whole).
 */
export function jsonLine(head: string, bytes: Uint8Array, tail: string, reuse?: Buffer): Buffer {
  const size = Buffer.byteLength(head) + 6 * bytes.byteLength + 2 + Buffer.byteLength(tail);
  // Never from Node's shared pool: the caller may reuse the whole buffer.
  const out =
    reuse !== undefined && reuse.byteLength >= size
      ? reuse
      : Buffer.allocUnsafeSlow(Math.max(size, MIN_LINE_BUFFER_BYTES));
  let at = out.write(head, 0);
  out[at++] = 0x22;
  // Byte by byte: copying runs with subarray() made an object per line, garbage V8 had to collect.
  const length = bytes.length;
  for (let i = 0; i < length;) {
    const byte = bytes[i]!;
    if (byte < 0x80) {
      const escape = ASCII_ESCAPES[byte]!;
      if (escape === 0) {
        out[at++] = byte;
      } else {
        out[at++] = 0x5c;
        if (escape === 0xff) {
          out[at++] = 0x75; // u00XX
          out[at++] = 0x30;
          out[at++] = 0x30;
          out[at++] = HEX_DIGITS[byte >> 4]!;
          out[at++] = HEX_DIGITS[byte & 15]!;
        } else {
          out[at++] = escape;
        }
      }
      i++;
      continue;
    }
    const character = utf8Length(bytes, i);
    if (character > 0) {
      for (const end = i + character; i < end; i++) {
        out[at++] = bytes[i]!; // a valid character, as it is
      }
    } else {
      out[at++] = 0xef; // U+FFFD
      out[at++] = 0xbf;
      out[at++] = 0xbd;
      i -= character;
    }
  }
  out[at++] = 0x22;
  at += out.write(tail, at);
  return out.subarray(0, at);
}
