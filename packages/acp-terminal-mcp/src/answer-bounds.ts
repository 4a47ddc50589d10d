import type { CallToolResult } from "@modelcontextprotocol/server";

/**
 * The most bytes one `tools/call` answer may take as JSON: well under the 10 MiB an SDK stdio
 * client reads in one message (a larger answer makes that client drop the connection). A tool's
 * answer stays far below it with the default limits; with `--max-output-chars` raised, or output
 * of control characters (6 bytes each in JSON), its longest texts are cut here to fit.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** An error answer's text at most (the design's bound for error answers). */
export const MAX_ERROR_CHARS = 4096;
/**
 * The most bytes in one command line, argument or environment variable: Linux's MAX_ARG_STRLEN
 * (32 pages). The kernel refuses to execute anything longer, so such a call is refused before it
 * starts, and no run holds a larger command.
 */
export const MAX_ARGUMENT_BYTES = 128 * 1024;

/** The input fields that become a command's argv, environment or directory, in any tool surface. */
const COMMAND_FIELDS = ["command", "args", "env", "workdir", "cwd"];

/** Why a call's arguments could never run (one is over MAX_ARGUMENT_BYTES), or undefined. */
export function oversizedArgument(input: Record<string, unknown>): string | undefined {
  for (const field of COMMAND_FIELDS) {
    const value = input[field];
    const strings =
      typeof value === "string"
        ? [value]
        : Array.isArray(value)
          ? value.filter((v): v is string => typeof v === "string")
          : value !== null && typeof value === "object"
            ? Object.entries(value).flatMap(([k, v]) =>
                typeof v === "string" ? [`${k}=${v}`] : [],
              )
            : [];
    for (const text of strings) {
      const bytes = Buffer.byteLength(text, "utf8");
      if (bytes > MAX_ARGUMENT_BYTES) {
        return `${field} holds a string of ${bytes} bytes; the kernel runs no command with an argument or variable over ${MAX_ARGUMENT_BYTES} bytes (MAX_ARG_STRLEN), so nothing was run. Write it to a file in the workspace and run a command that reads the file.`;
      }
    }
  }
  return undefined;
}

/** An `isError` answer with one short message (cut to MAX_ERROR_CHARS) and its code. */
export function errorResult(code: string, message: string): CallToolResult {
  const text =
    message.length > MAX_ERROR_CHARS
      ? `${message.slice(0, MAX_ERROR_CHARS)}… (${message.length} characters)`
      : message;
  return {
    isError: true,
    content: [{ type: "text", text }],
    structuredContent: { error: { code, message: text } },
  };
}

/** JSON bytes of a value as it goes on the wire. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/**
 * A tool's answer as `structuredContent` and the same JSON as text (for hosts that show only
 * text), cut to fit MAX_ANSWER_BYTES: while too large, the longest string in it keeps only its
 * end (output tails matter most), and `answerCut` says what was cut. Nothing is written into the
 * string itself: an output keeps only the command's bytes.
 */
export function boundedAnswer(
  structured: Record<string, unknown>,
  maxBytes = MAX_ANSWER_BYTES,
): CallToolResult {
  // Two copies (structured, and as text where JSON escapes it again) plus the envelope.
  const budget = Math.floor(maxBytes / 2.2);
  let value = structured;
  const cuts: string[] = [];
  for (let round = 0; round < 32 && jsonBytes(value) > budget; round++) {
    const longest = longestString(value);
    if (!longest || longest.text.length < 64) {
      break;
    }
    const excess = jsonBytes(value) - budget;
    // Bytes per character of this string in JSON, so one cut usually suffices.
    const ratio = jsonBytes(longest.text) / longest.text.length;
    const keep = Math.max(0, longest.text.length - Math.ceil(excess / ratio) - 256);
    const kept = longest.text.slice(longest.text.length - keep);
    value = replaceIn(value, longest.path, kept);
    cuts.push(
      `${longest.path.join(".")}: kept the last ${keep} of ${longest.text.length} characters`,
    );
  }
  if (cuts.length > 0) {
    value = {
      ...value,
      answerCut: `this answer was cut to fit ${maxBytes} bytes: ${cuts.slice(0, 4).join("; ")}`,
    };
  }
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

interface Found {
  path: (string | number)[];
  text: string;
}

function longestString(value: unknown, path: (string | number)[] = []): Found | undefined {
  if (typeof value === "string") {
    return { path, text: value };
  }
  if (value === null || typeof value !== "object") {
    return undefined;
  }
  let best: Found | undefined;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, i): [number, unknown] => [i, item])
    : Object.entries(value);
  for (const [key, child] of entries) {
    const found = longestString(child, [...path, key]);
    if (found && (!best || found.text.length > best.text.length)) {
      best = found;
    }
  }
  return best;
}

/** `record` with the string at `path` (its first key a property of the record) replaced by `text`. */
function replaceIn(
  record: Record<string, unknown>,
  path: (string | number)[],
  text: string,
): Record<string, unknown> {
  const [head, ...rest] = path;
  return { ...record, [String(head)]: replaceAt(record[String(head)], rest, text) };
}

function replaceAt(value: unknown, path: (string | number)[], text: string): unknown {
  if (path.length === 0) {
    return text;
  }
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    return value.map((item: unknown, i) => (i === head ? replaceAt(item, rest, text) : item));
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [
        key,
        key === head ? replaceAt(child, rest, text) : child,
      ]),
    );
  }
  return value;
}
