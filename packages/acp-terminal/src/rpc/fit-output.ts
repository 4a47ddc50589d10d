/**
 * Keeps a `terminal/output` response under the peer's message limit.
 *
 * The host caps `outputByteLimit`, but bytes are not what travels: inside a JSON string a control
 * byte becomes `\u001b` (6 bytes), so 8 MiB of escape-heavy PTY output can exceed the SDK's
 * 32 MiB line limit and the agent would drop the connection. When the escaped output would not
 * fit, we drop more from the beginning (as the limit itself does), on a character boundary.
 */

/** Room left for the JSON-RPC envelope, `exitStatus` and `_meta` around the output string. */
const ENVELOPE_RESERVE_BYTES = 64 * 1024;

/** The most bytes one UTF-16 code unit can take once JSON-escaped (`\u001b`). */
const MAX_ESCAPED_BYTES_PER_UNIT = 6;

export interface FittedOutput {
  output: string;
  /** UTF-8 bytes removed from the front of `output` to make it fit (0 when it already fit). */
  trimmedBytes: number;
}

/** The byte budget for the output string in a message of at most `maxMessageBytes`. */
export function outputBudgetBytes(maxMessageBytes: number): number {
  return maxMessageBytes - Math.min(ENVELOPE_RESERVE_BYTES, Math.floor(maxMessageBytes / 2));
}

/** Bytes one code unit (or surrogate pair, `pair`) takes inside a JSON string literal. */
function escapedBytes(unit: number): number {
  if (unit === 0x22 || unit === 0x5c) {
    return 2; // \" \\
  }
  if (unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d) {
    return 2;
  }
  if (unit < 0x20) {
    return 6; // \u00XX
  }
  if (unit < 0x80) {
    return 1;
  }
  if (unit < 0x800) {
    return 2;
  }
  if (unit >= 0xd800 && unit <= 0xdfff) {
    return 6; // lone surrogate: \uDXXX
  }
  return 3;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Returns the longest tail of `output` whose JSON-escaped form fits in `budgetBytes`. */
export function fitOutputToBudget(output: string, budgetBytes: number): FittedOutput {
  if (output.length * MAX_ESCAPED_BYTES_PER_UNIT <= budgetBytes) {
    return { output, trimmedBytes: 0 };
  }
  let used = 0;
  let start = output.length;
  while (start > 0) {
    const unit = output.charCodeAt(start - 1);
    let width = 1;
    let cost = escapedBytes(unit);
    if (isLowSurrogate(unit) && start >= 2 && isHighSurrogate(output.charCodeAt(start - 2))) {
      width = 2;
      cost = 4;
    }
    if (used + cost > budgetBytes) {
      break;
    }
    used += cost;
    start -= width;
  }
  if (start === 0) {
    return { output, trimmedBytes: 0 };
  }
  return {
    output: output.slice(start),
    trimmedBytes: Buffer.byteLength(output.slice(0, start), "utf8"),
  };
}
