/**
 * UTF-8 boundary helpers for byte buffers. A continuation byte is `10xxxxxx`; a lead byte says
 * how many bytes its character has. Neither function looks at more than four bytes.
 */

/** Longest UTF-8 sequence, so the most continuation bytes a character can have is 3. */
const MAX_SEQUENCE_BYTES = 4;

function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Bytes of the character a lead byte starts, or 0 when `byte` cannot start a multi-byte one. */
function sequenceLength(byte: number): number {
  if (byte >= 0xc2 && byte <= 0xdf) {
    return 2;
  }
  if (byte >= 0xe0 && byte <= 0xef) {
    return 3;
  }
  if (byte >= 0xf0 && byte <= 0xf4) {
    return 4;
  }
  return 0;
}

/**
 * How many leading continuation bytes to skip so text starts on a character boundary: at most
 * 3, since no valid character has more; past that the bytes are not UTF-8 and the decoder's
 * U+FFFD handles them.
 */
export function leadingContinuationBytes(
  byteAt: (index: number) => number,
  length: number,
): number {
  let skip = 0;
  while (skip < length && skip < MAX_SEQUENCE_BYTES - 1 && isContinuationByte(byteAt(skip))) {
    skip++;
  }
  return skip;
}

/**
 * Length of an incomplete character at the end (a lead byte whose continuation bytes have not
 * arrived yet), or 0. While a command runs, the rest may still come, so it is not shown as U+FFFD.
 */
export function incompleteTailBytes(byteAt: (index: number) => number, length: number): number {
  for (let back = 1; back <= Math.min(MAX_SEQUENCE_BYTES - 1, length); back++) {
    const byte = byteAt(length - back);
    if (isContinuationByte(byte)) {
      continue;
    }
    const needed = sequenceLength(byte);
    return needed > back ? back : 0;
  }
  return 0;
}
