import type { RunItem } from "../../model/run-record.js";

/** The first `maxBytes` of `text` in UTF-8, cut on a character boundary (never more). */
function firstBytes(text: string, maxBytes: number): { text: string; omittedBytes: number } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) {
    return { text, omittedBytes: 0 };
  }
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) {
    end--; // back off a continuation byte
  }
  return { text: bytes.subarray(0, end).toString("utf8"), omittedBytes: bytes.length - end };
}

/** The last `maxBytes` of `text` in UTF-8, cut on a character boundary (never more). */
export function lastBytes(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) {
    return { text, truncated: false };
  }
  let from = bytes.length - maxBytes;
  while (from < bytes.length && (bytes[from]! & 0xc0) === 0x80) {
    from++;
  }
  return { text: bytes.subarray(from).toString("utf8"), truncated: true };
}

export interface FittedItems {
  items: RunItem[];
  /** Where the next poll continues: after the last item returned (whole or cut). */
  nextSeq: number;
  /** An item too big for the budget on its own, returned cut: its seq and the bytes left out. */
  cut?: { seq: number; omittedBytes: number };
}

/**
 * Items whose texts fit in `maxBytes` of UTF-8 together. Whole items while they fit; when the
 * first one alone is larger, its start is returned cut on a character boundary (the rest stays
 * readable by line or byte offset) so a poll always advances.
 */
export function fitItems(
  items: readonly RunItem[],
  maxBytes: number,
  nextSeq: number,
): FittedItems {
  const fitted: RunItem[] = [];
  let used = 0;
  for (const item of items) {
    const size = Buffer.byteLength(item.text, "utf8");
    if (used + size <= maxBytes) {
      fitted.push(item);
      used += size;
      continue;
    }
    if (fitted.length > 0) {
      return { items: fitted, nextSeq: item.seq };
    }
    const part = firstBytes(item.text, maxBytes);
    return {
      items: [{ ...item, text: part.text }],
      nextSeq: item.seq + 1,
      cut: { seq: item.seq, omittedBytes: part.omittedBytes },
    };
  }
  return { items: fitted, nextSeq };
}
