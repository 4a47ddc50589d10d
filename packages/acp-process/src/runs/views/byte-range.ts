import { ProcessError } from "../../base/errors.js";
import {
  streamOffset,
  totalOutputBytes,
  type RunItem,
  type RunRecord,
} from "../../model/run-record.js";
import type { RunStore } from "../../store/types.js";
import type { OutputArchive } from "../spill/output-archive.js";

export interface OutputRange {
  /** The bytes read (UTF-8 of the decoded output); fewer than asked where the output ends, a lost range starts, or a character would be split. */
  bytes: Buffer;
  /** Absolute offset of `bytes[0]`. */
  offset: number;
  /** Every byte the command wrote so far (`totalOutputBytes`). */
  totalBytes: number;
}

/** Where a run's output is: the record, its retained items and its spill. */
export interface OutputSource {
  record: RunRecord;
  store: RunStore;
  archive: OutputArchive | undefined;
}

/**
 * Output bytes `[offset, offset + limit)` by absolute offset, from the run's spill or its
 * retained items. A range that exists but cannot be read is an error saying why and where reading
 * can go on (`output_evicted`, `output_lost`, `output_not_kept`), never an empty answer; an offset
 * at the end is an empty answer (nothing more yet). With `wholeCharacters` the start moves forward
 * past UTF-8 continuation bytes and the end back, so consecutive reads never split a character.
 */
export function readOutputRange(
  source: OutputSource,
  query: { offset: number; limit: number; wholeCharacters?: boolean },
): OutputRange {
  const { record } = source;
  const totalBytes = totalOutputBytes(record);
  const keptEnd = streamOffset(record);
  const { offset } = query;
  if (offset > totalBytes) {
    throw ProcessError.invalidParams(
      "offset",
      `an offset from 0 to ${totalBytes} (the run's output so far, in bytes)`,
      offset,
    );
  }
  if (offset >= keptEnd && offset < totalBytes) {
    throw new ProcessError(
      "output_not_kept",
      `Bytes ${keptEnd}..${totalBytes} of run ${record.id} were not kept: the run's max_output_bytes (${record.maxOutputBytes ?? 0}) was reached, and output past it is only counted`,
    );
  }
  let end = Math.min(keptEnd, offset + Math.max(0, query.limit));
  for (const [start, bytes] of validRanges(record.lostRanges)) {
    if (offset >= start && offset < start + bytes) {
      throw new ProcessError(
        "output_lost",
        `Bytes ${start}..${start + bytes} of run ${record.id} were dropped by the client's output limit before acp-process could read them; the output is readable again from offset ${start + bytes}`,
      );
    }
    if (start > offset) {
      end = Math.min(end, start);
      break;
    }
  }
  const bytes = end > offset ? readKept(source, offset, end - offset) : Buffer.alloc(0);
  return query.wholeCharacters
    ? { bytes: wholeCharacters(bytes), offset: offset + leadingContinuations(bytes), totalBytes }
    : { bytes, offset, totalBytes };
}

/** `length` kept bytes from `offset`: the spill first, else (or where it was evicted) the retained items. */
function readKept(source: OutputSource, offset: number, length: number): Buffer {
  const spill = source.archive?.existing(source.record.id);
  if (spill) {
    const read = spill.read(offset, length);
    if ("bytes" in read && read.bytes.length > 0) {
      return read.bytes;
    }
  }
  const items = source.store.allItems(source.record.id).filter((item) => item.kind === "output");
  const first = items[0]?.byteOffset ?? streamOffset(source.record);
  if (offset < first) {
    const readable = Math.min(first, spill?.firstOffset ?? Infinity);
    const why = spill?.failed
      ? `not spilled to disk: writing the spill failed (${spill.failed})`
      : spill
        ? `evicted from the output spill by its disk quota (${source.archive!.quotaBytes} bytes for all runs; the oldest finished runs go first)`
        : `no longer retained (the store keeps the last ${source.store.retention.maxCharsPerRun} characters of a run, and this run's output was not spilled to disk)`;
    throw new ProcessError(
      "output_evicted",
      `Bytes ${offset}..${readable} of run ${source.record.id} were ${why}; the output is readable from offset ${readable}`,
    );
  }
  return fromItems(items, offset, length);
}

/** The bytes of `items` (output, consecutive) that fall in `[offset, offset + length)`. */
function fromItems(items: readonly RunItem[], offset: number, length: number): Buffer {
  const parts: Buffer[] = [];
  const end = offset + length;
  for (const item of items) {
    if (item.byteOffset >= end) {
      break;
    }
    const bytes = Buffer.from(item.text, "utf8");
    const itemEnd = item.byteOffset + bytes.length;
    if (itemEnd <= offset) {
      continue;
    }
    parts.push(
      bytes.subarray(
        Math.max(0, offset - item.byteOffset),
        Math.min(bytes.length, end - item.byteOffset),
      ),
    );
  }
  return Buffer.concat(parts);
}

function leadingContinuations(bytes: Buffer): number {
  let from = 0;
  while (from < bytes.length && (bytes[from]! & 0xc0) === 0x80) {
    from++;
  }
  return from;
}

/** `bytes` without continuation bytes at its start nor an incomplete character at its end. */
function wholeCharacters(bytes: Buffer): Buffer {
  const from = leadingContinuations(bytes);
  let to = bytes.length;
  // The last lead byte within a character's length of the end: is its character complete?
  for (let i = to - 1; i >= Math.max(from, to - 4); i--) {
    const byte = bytes[i]!;
    if ((byte & 0xc0) === 0x80) {
      continue;
    }
    const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    if (i + length > to) {
      to = i;
    }
    break;
  }
  return bytes.subarray(from, to);
}

/** `lostRanges` as stored: pairs of whole numbers, oldest first; anything else is ignored. */
function validRanges(ranges: unknown): [number, number][] {
  if (!Array.isArray(ranges)) {
    return [];
  }
  return ranges.filter(
    (range): range is [number, number] =>
      Array.isArray(range) &&
      range.length === 2 &&
      Number.isInteger(range[0]) &&
      Number.isInteger(range[1]),
  );
}
