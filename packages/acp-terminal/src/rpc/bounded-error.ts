import { RequestError } from "@agentclientprotocol/sdk";

/**
 * The most an error answer's `error` member (`{code, message, data}`) may take, in UTF-8 bytes.
 * The JSON-RPC envelope adds the agent's own `id`. Whatever the agent sent (a 20 MB string, a
 * million wrong items, a huge key), the answer stays this small.
 */
export const MAX_ERROR_ANSWER_BYTES = 4096;
/** Room for `{"jsonrpc":"2.0","id":…,"error":}` around the error with an ordinary id. */
const ENVELOPE_BYTES = 96;
const MAX_MESSAGE_CHARS = 1000;
const MAX_DATA_STRING_CHARS = 200;
/** Issues listed in `data.issues`; the rest are counted in `data.moreIssues`. */
export const MAX_LISTED_ISSUES = 10;

/** `text` cut to `maxChars`, saying how long it was. */
export function cutText(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… (${text.length} chars)`;
}

const bytesOf = (error: { code: number; message: string; data?: unknown }) =>
  Buffer.byteLength(JSON.stringify(error), "utf8");

/** Top-level strings cut, arrays of issues cut to MAX_LISTED_ISSUES, other values as they are. */
function shrinkData(data: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const entries: [string, unknown][] = Object.entries(data);
  for (const [key, value] of entries) {
    if (typeof value === "string") {
      out[key] = cutText(value, MAX_DATA_STRING_CHARS);
    } else if (value === null || typeof value !== "object") {
      out[key] = value;
    } else if (key === "issues" && Array.isArray(value)) {
      out[key] = value
        .slice(0, MAX_LISTED_ISSUES)
        .map((issue: unknown) => (issue && typeof issue === "object" ? shrinkData(issue) : issue));
    }
    // Anything else nested is the host's own small data; dropped only if it does not fit below.
    else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * A RequestError whose JSON fits MAX_ERROR_ANSWER_BYTES: the message cut to MAX_MESSAGE_CHARS,
 * strings in `data` cut, and, if it still does not fit, `data` dropped to what fits.
 */
export function boundedRequestError(code: number, message: string, data?: object): RequestError {
  const limit = MAX_ERROR_ANSWER_BYTES - ENVELOPE_BYTES;
  const cutMessage = cutText(message, MAX_MESSAGE_CHARS);
  let shrunk = data === undefined ? undefined : shrinkData(data);
  // A message of 1,000 characters each escaped to 6 bytes (control characters) alone is too big.
  let finalMessage = cutMessage;
  while (Buffer.byteLength(JSON.stringify(finalMessage), "utf8") > limit / 2) {
    finalMessage = cutText(finalMessage, Math.floor(finalMessage.length / 2));
  }
  if (shrunk !== undefined && bytesOf({ code, message: finalMessage, data: shrunk }) > limit) {
    const issues = Array.isArray(shrunk["issues"]) ? (shrunk["issues"] as unknown[]) : undefined;
    const small: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(shrunk)) {
      if (key !== "issues" && (value === null || typeof value !== "object")) {
        small[key] = value;
      }
    }
    shrunk = small;
    // Keep as many issues as fit.
    for (let n = issues?.length ?? 0; n > 0; n--) {
      const candidate = { ...small, issues: issues!.slice(0, n) };
      if (bytesOf({ code, message: finalMessage, data: candidate }) <= limit) {
        shrunk = candidate;
        break;
      }
    }
    if (bytesOf({ code, message: finalMessage, data: shrunk }) > limit) {
      shrunk = undefined;
    }
  }
  return new RequestError(code, finalMessage, shrunk);
}
