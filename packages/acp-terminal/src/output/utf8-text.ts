/**
 * The end of `text` that fits in `limit` UTF-8 bytes, cut on a character boundary (a surrogate
 * pair stays whole), and whether anything was cut.
 */
export function tailWithinBytes(text: string, limit: number): { text: string; cut: boolean } {
  if (text.length * 3 <= limit || Buffer.byteLength(text) <= limit) {
    return { text, cut: false };
  }
  let bytes = 0;
  let start = text.length;
  while (start > 0) {
    const unit = text.charCodeAt(start - 1);
    const pair =
      unit >= 0xdc00 && unit <= 0xdfff && start >= 2 && isHighSurrogate(text.charCodeAt(start - 2));
    const size = pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
    if (bytes + size > limit) {
      break;
    }
    bytes += size;
    start -= pair ? 2 : 1;
  }
  return { text: text.slice(start), cut: true };
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
