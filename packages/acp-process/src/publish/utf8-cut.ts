/** Whether `bytes[index]` continues a UTF-8 character (10xxxxxx). */
function isContinuation(bytes: Uint8Array, index: number): boolean {
  return index < bytes.length && (bytes[index]! & 0xc0) === 0x80;
}

/**
 * The last `maxBytes` bytes (or fewer), starting on a character boundary: the start moves forward
 * past continuation bytes, so the tail never begins inside a character.
 */
export function utf8Tail(bytes: Uint8Array, maxBytes: number): Uint8Array {
  if (bytes.length <= maxBytes) {
    return bytes;
  }
  let from = bytes.length - maxBytes;
  while (isContinuation(bytes, from)) {
    from++;
  }
  return bytes.subarray(from);
}

/**
 * `bytes` cut into pieces of at most `maxBytes`, each ending on a character boundary (a piece is
 * shortened rather than split inside a character; `maxBytes` must be at least 4).
 */
export function utf8Pieces(bytes: Uint8Array, maxBytes: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let from = 0;
  while (from < bytes.length) {
    let to = Math.min(from + maxBytes, bytes.length);
    while (to > from + 1 && isContinuation(bytes, to)) {
      to--;
    }
    pieces.push(bytes.subarray(from, to));
    from = to;
  }
  return pieces;
}
