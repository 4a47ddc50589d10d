/**
 * A JSON string's or a base64 string's contents, decoded from a line's bytes into bytes (never a
 * string), as the fast lanes need them (see line-scan.ts).
 */

const BACKSLASH = 0x5c;

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
    if (
      code >= 0xd800 &&
      code <= 0xdbff &&
      line[i] === BACKSLASH &&
      line[i + 1] === 0x75 &&
      i + 6 <= end
    ) {
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
      c >= 0x30 && c <= 0x39
        ? c - 0x30
        : c >= 0x61 && c <= 0x66
          ? c - 0x57
          : c >= 0x41 && c <= 0x46
            ? c - 0x37
            : -1;
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

/**
 * Base64 text decoded per slice by Node's native decoder: a slice's characters become a short
 * latin1 string that dies young (a whole 64 KiB chunk as one string was ~87 KB of garbage at a
 * time, enough to make V8 touch its whole young generation), and the decoder runs ~4x faster than
 * a JS loop. A multiple of 4.
 */
const NATIVE_SLICE = 16 * 1024;
const DASH = 0x2d;
const UNDERSCORE = 0x5f;

/** Strict base64 (padding only at the end) decoded into bytes; undefined for anything else. */
export function decodeBase64(
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
  // Node's decoder also takes base64url's - and _ (and skips what it does not know, which the
  // counts below catch): strict base64 has neither.
  const dash = line.indexOf(DASH, start);
  const underscore = line.indexOf(UNDERSCORE, start);
  if ((dash !== -1 && dash < end) || (underscore !== -1 && underscore < end)) {
    return undefined;
  }
  const size = Math.floor((length * 3) / 4);
  const bytes =
    scratch !== undefined && scratch.byteLength >= size
      ? scratch.subarray(0, size)
      : new Uint8Array(size);
  const out = Buffer.from(bytes.buffer, bytes.byteOffset, size);
  let o = 0;
  // Whole slices of four-character groups; the padding stays out of every slice.
  for (let i = start; i < last; i += NATIVE_SLICE) {
    const stop = Math.min(i + NATIVE_SLICE, last);
    const expected = Math.floor(((stop - i) * 3) / 4);
    // Every skipped (invalid) character, and an = inside, leaves fewer bytes than expected.
    if (out.write(line.toString("latin1", i, stop), o, "base64") !== expected) {
      return undefined;
    }
    o += expected;
  }
  return o === size ? bytes : undefined;
}
