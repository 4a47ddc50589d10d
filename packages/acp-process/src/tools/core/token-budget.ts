import { z } from "zod";
import type { ProcessManager } from "../../runs/manager/manager.js";
import { headEnd, partialLines, partialNote, tailStart, type PartialLines } from "./line-cut.js";

/**
 * Output a model sees is held to a token budget. Tokens are counted as Codex counts them: one per
 * 4 bytes of UTF-8, rounded up (`tokensOf`), so a budget is a byte budget the model can reason
 * about without a tokenizer. Output over the budget keeps its head and its tail (or one of them,
 * on request) and says what was left out: bytes, tokens, and how to read them.
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
export const BYTES_PER_TOKEN = 4;
/** The largest budget a call may ask for (1 MiB of output). */
export const MAX_OUTPUT_TOKENS = 262_144;

export type Keep = "head_tail" | "head" | "tail";

export function tokensOf(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

/** `max_output_tokens`: what every model-facing tool takes. */
export const maxOutputTokensInput = z
  .number()
  .int()
  .min(1)
  .max(MAX_OUTPUT_TOKENS)
  .optional()
  .describe(
    `Most tokens of output in the answer (default ${DEFAULT_MAX_OUTPUT_TOKENS}; a token is 4 bytes of UTF-8, rounded up). Longer output keeps its head and tail and says how to read the rest`,
  );

/** `keep`: what cut output keeps. */
export const keepInput = z
  .enum(["head_tail", "head", "tail"])
  .optional()
  .describe("What cut output keeps: head_tail (default), head or tail");

/** The budget inputs, as the snake_case surfaces name them (process.*, shell, unified exec). */
export const budgetInputs = { max_output_tokens: maxOutputTokensInput, keep: keepInput } as const;
/** The same, as the exec/process surface names them (camelCase). */
export const budgetInputsCamel = {
  maxOutputTokens: maxOutputTokensInput,
  keep: keepInput,
} as const;

/** What a cut left out, in absolute output offsets when they are known. */
export interface Omission {
  bytes: number;
  tokens: number;
  /** Absolute offset of the first byte left out (absent when the cut text is not the run's output alone). */
  offset?: number;
  /** The lines around the marker that are cut partway (absent: the cut fell on line breaks). */
  partial?: PartialLines;
}

export interface Budgeted {
  text: string;
  truncated: boolean;
  /** Bytes and tokens of the output before the cut. */
  originalBytes: number;
  originalTokens: number;
  omitted?: Omission;
}

/** Where the omitted bytes can be read: `(offset, bytes) => "process.logs {...}"`. */
export type ReadHint = (offset: number, bytes: number) => string;

/** Bytes of a budget kept for the marker line (with its read hint) when output is cut. */
export const MARKER_RESERVE_BYTES = 400;

/**
 * Output bytes `[from, to)` of a run within `maxTokens`: read whole when they fit, else the head
 * and the tail (each read by offset, cut on line breaks where one is near: see line-cut.ts) around
 * a marker that names the bytes left out and how to read them.
 */
export async function budgetedRange(
  manager: ProcessManager,
  runId: string,
  query: {
    sessionId?: string;
    from: number;
    to: number;
    maxTokens: number;
    keep: Keep;
    hint: ReadHint;
  },
): Promise<Budgeted> {
  const { from, to, keep } = query;
  const originalBytes = Math.max(0, to - from);
  const budget = query.maxTokens * BYTES_PER_TOKEN;
  const read = async (offset: number, limit: number) =>
    manager.wholeCharacterBytes(runId, {
      ...(query.sessionId !== undefined ? { sessionId: query.sessionId } : {}),
      offset,
      limit,
    });
  if (originalBytes <= budget) {
    const whole = await read(from, originalBytes);
    return {
      text: whole.text,
      truncated: false,
      originalBytes,
      originalTokens: tokensOf(originalBytes),
    };
  }
  const room = Math.max(0, budget - MARKER_RESERVE_BYTES);
  const headRoom = keep === "head" ? room : keep === "tail" ? 0 : Math.floor(room / 2);
  const tailRoom = room - headRoom;
  const head = headRoom > 0 ? await headOf(read, from, headRoom) : NO_HEAD;
  // A tail inside a range that cannot be read (lost, evicted) is left out: the head stands alone.
  const tail =
    tailRoom > 0
      ? await tailOf(read, to, tailRoom, from).catch(() => ({ ...NO_HEAD, offset: to }))
      : { ...NO_HEAD, offset: to };
  const omittedFrom = from + head.bytes;
  const omitted = omission(omittedFrom, tail.offset - omittedFrom, head.partial, tail.partial);
  return {
    text: aroundMarker(head.text, marker(omitted, query.hint), tail.text),
    truncated: true,
    originalBytes,
    originalTokens: tokensOf(originalBytes),
    omitted,
  };
}

type ReadText = (offset: number, limit: number) => Promise<{ text: string; offset: number }>;

const NO_HEAD = { text: "", bytes: 0, partial: false };

/** The first `room` bytes from `from`, ending on a line break where one is near the end. */
async function headOf(
  read: ReadText,
  from: number,
  room: number,
): Promise<{ text: string; bytes: number; partial: boolean }> {
  const got = await read(from, room);
  const bytes = Buffer.from(got.text, "utf8");
  const { end, partial } = headEnd(bytes);
  return {
    text: end === bytes.length ? got.text : bytes.subarray(0, end).toString("utf8"),
    bytes: end,
    partial,
  };
}

/**
 * The last `room` bytes before `to`, starting a line where one starts near the budget's edge. The
 * byte before the edge is read too (when it is inside the range, from `floor`), to see whether a
 * line starts at the edge itself.
 */
async function tailOf(
  read: ReadText,
  to: number,
  room: number,
  floor: number,
): Promise<{ text: string; offset: number; partial: boolean }> {
  const edge = to - room;
  const got = await read(Math.max(floor, edge - 1), to - Math.max(floor, edge - 1));
  const bytes = Buffer.from(got.text, "utf8");
  const { start, partial } = tailStart(bytes, Math.max(0, edge - got.offset), got.offset === floor);
  return { text: bytes.subarray(start).toString("utf8"), offset: got.offset + start, partial };
}

function omission(offset: number, bytes: number, head: boolean, tail: boolean): Omission {
  const partial = partialLines(head, tail);
  return { offset, bytes, tokens: tokensOf(bytes), ...(partial ? { partial } : {}) };
}

/**
 * `text` within `maxTokens`, cut on line breaks where one is near the budget's edge (else on
 * character boundaries), for output assembled from stored items (notices and watcher hits
 * included). `offsetAt(i)`, when given, maps a position in `text` to an absolute output offset so
 * the marker can say where the omitted bytes are.
 */
export function budgetedText(
  text: string,
  options: { maxTokens: number; keep: Keep; hint?: ReadHint; offsetAt?: (index: number) => number },
): Budgeted {
  const bytes = Buffer.from(text, "utf8");
  const originalBytes = bytes.length;
  const budget = options.maxTokens * BYTES_PER_TOKEN;
  if (originalBytes <= budget) {
    return { text, truncated: false, originalBytes, originalTokens: tokensOf(originalBytes) };
  }
  const room = Math.max(0, budget - MARKER_RESERVE_BYTES);
  const headRoom =
    options.keep === "head" ? room : options.keep === "tail" ? 0 : Math.floor(room / 2);
  let headCut = headRoom;
  while (headCut > 0 && (bytes[headCut]! & 0xc0) === 0x80) {
    headCut--;
  }
  const head = headCut > 0 ? headEnd(bytes.subarray(0, headCut)) : { end: 0, partial: false };
  const tail = tailStart(bytes, bytes.length - (room - headRoom), false);
  const headText = bytes.subarray(0, head.end).toString("utf8");
  const omittedBytes = tail.start - head.end;
  const partial = partialLines(head.partial, tail.partial);
  const omitted: Omission = {
    bytes: omittedBytes,
    tokens: tokensOf(omittedBytes),
    ...(partial ? { partial } : {}),
  };
  if (options.offsetAt) {
    omitted.offset = options.offsetAt(headText.length);
  }
  return {
    text: aroundMarker(
      headText,
      marker(omitted, options.hint),
      bytes.subarray(tail.start).toString("utf8"),
    ),
    truncated: true,
    originalBytes,
    originalTokens: tokensOf(originalBytes),
    omitted,
  };
}

/** `budgetedText` for text that is the run's output ending at absolute offset `endOffset` (a tail or summary). */
export function budgetedTail(
  text: string,
  endOffset: number,
  options: { maxTokens: number; keep: Keep; hint: ReadHint },
): Budgeted {
  return budgetedText(text, {
    ...options,
    offsetAt: (index) => endOffset - Buffer.byteLength(text.slice(index), "utf8"),
  });
}

/** The answer's budget from a tool's inputs (`max_output_tokens` or `maxOutputTokens`, and `keep`). */
export function budgetOf(input: {
  max_output_tokens?: number | undefined;
  maxOutputTokens?: number | undefined;
  keep?: Keep | undefined;
}): { maxTokens: number; keep: Keep } {
  return {
    maxTokens: input.max_output_tokens ?? input.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    keep: input.keep ?? "head_tail",
  };
}

/**
 * The first entries of a list whose JSON fits in `maxTokens` (at least one); `omitted` counts the
 * rest, for list answers that carry no output of their own.
 */
export function fitEntries<T>(
  entries: readonly T[],
  maxTokens: number,
): { entries: T[]; omitted: number } {
  const budget = maxTokens * BYTES_PER_TOKEN;
  let used = 0;
  let count = 0;
  for (const entry of entries) {
    used += Buffer.byteLength(JSON.stringify(entry) ?? "", "utf8") + 1;
    if (count > 0 && used > budget) {
      break;
    }
    count++;
  }
  return { entries: entries.slice(0, count), omitted: entries.length - count };
}

/** Bytes a hint offers to read at once (a page, not the whole omission). */
export const HINT_LIMIT_BYTES = 65_536;

/** The line standing in for what was cut: how much, where (exact byte offsets), which lines it cut partway, how to read it. */
export function marker(omitted: Omission, hint: ReadHint | undefined): string {
  const at = omitted.offset !== undefined && hint ? omitted.offset : undefined;
  const where = at !== undefined ? ` (output bytes ${at}..${at + omitted.bytes})` : "";
  const partial = omitted.partial ? `; ${partialNote(omitted.partial)}` : "";
  const read = at !== undefined && hint ? `; read them with ${hint(at, omitted.bytes)}` : "";
  return `[... ${omitted.bytes} bytes (${omitted.tokens} tokens) omitted${where}${partial}${read} ...]`;
}

/**
 * `head`, then the marker `line` on a line of its own, then `tail`. A line break is added before
 * the marker only where the head ends partway through a line, so no blank line appears that the
 * output does not have. An empty `line` (no marker) joins head and tail.
 */
export function aroundMarker(head: string, line: string, tail: string): string {
  if (line === "") {
    return head + tail;
  }
  return `${head}${head === "" || head.endsWith("\n") ? "" : "\n"}${line}\n${tail}`;
}

/** The fields a cut adds to an answer, in the surface's naming style. */
export function budgetFields(
  budgeted: Budgeted,
  style: "snake" | "camel",
): Record<string, unknown> {
  if (!budgeted.truncated) {
    return {};
  }
  return style === "snake"
    ? {
        original_bytes: budgeted.originalBytes,
        original_token_count: budgeted.originalTokens,
        omitted: budgeted.omitted,
      }
    : {
        originalBytes: budgeted.originalBytes,
        originalTokenCount: budgeted.originalTokens,
        omitted: budgeted.omitted,
      };
}
