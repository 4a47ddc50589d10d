/**
 * Deterministic output for the benchmarks: mixed ASCII and multi-byte UTF-8 (2, 3 and 4 bytes),
 * so chunk boundaries and the retained start fall inside characters.
 */

const line = (n) =>
  `flood ${String(n).padStart(8, "0")} ascii text, héllo wörld → ✓ 日本語 😀 ${"-".repeat(n % 17)}\n`;

/** Exactly `bytes` bytes of valid UTF-8 made of the line pattern, padded with ASCII at the end. */
export function payload(bytes, { reserveAscii = 0 } = {}) {
  // NaN would never end the loop below: say what was wrong instead.
  if (
    !Number.isSafeInteger(bytes) ||
    !Number.isSafeInteger(reserveAscii) ||
    reserveAscii < 0 ||
    bytes < reserveAscii
  ) {
    throw new RangeError(
      `payload: bytes must be an integer of at least reserveAscii (${reserveAscii}), received ${bytes}`,
    );
  }
  const parts = [];
  let size = 0;
  for (let n = 0; ; n++) {
    const next = line(n);
    const length = Buffer.byteLength(next);
    if (size + length > bytes - reserveAscii) break;
    parts.push(next);
    size += length;
  }
  const text = parts.join("") + ".".repeat(bytes - size);
  return Buffer.from(text, "utf8");
}

/** The line the flood ends with, so a reader can check it has the last bytes. */
export const floodEnd = (totalBytes) => `\nFLOOD-END ${totalBytes} bytes ✓ done\n`;

/** Bytes of one block the flood repeats; the total must be a multiple of it. */
export const FLOOD_BLOCK_BYTES = 1024 * 1024;

/** How many ASCII padding bytes each block ends with (room for the end marker). */
export const FLOOD_PADDING_BYTES = 128;
