import { describeAction } from "../host/authorize.js";
import type { AuthorizeRequest } from "../host/types.js";

/** The longest rendering of one agent-chosen string in a question. */
const MAX_SHOWN_CHARS = 500;
/** Environment variables listed before "and N more". */
const MAX_SHOWN_ENV = 20;

/**
 * Agent-chosen text made safe to show on a terminal: control characters (escape sequences that
 * could redraw the question, carriage returns that could hide part of a command) written as
 * `\xNN`/`\uNNNN`, cut to MAX_SHOWN_CHARS with the full length named.
 */
export function printable(text: string): string {
  const shown = text.length > MAX_SHOWN_CHARS ? text.slice(0, MAX_SHOWN_CHARS) : text;
  const escaped = shown.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => {
      const code = c.charCodeAt(0);
      return code <= 0xff
        ? `\\x${code.toString(16).padStart(2, "0")}`
        : `\\u${code.toString(16).padStart(4, "0")}`;
    },
  );
  return text.length > MAX_SHOWN_CHARS ? `${escaped}… (${text.length} chars)` : escaped;
}

/**
 * A request as lines for a person to judge: what will run or be sent, where, and the environment
 * the agent set. Writes show the start of their data.
 */
export function describeAuthorizeRequest(request: AuthorizeRequest): string[] {
  const lines = [printable(describeAction(request))];
  if (request.action === "write") {
    // Enough bytes to fill the shown characters; the byte count is in the first line.
    lines.push(
      `  data: ${printable(Buffer.from(request.data.subarray(0, MAX_SHOWN_CHARS * 4)).toString("utf8"))}`,
    );
  }
  lines.push(`  cwd: ${printable(request.cwd)}`);
  if (request.env.length > 0) {
    const shown = request.env
      .slice(0, MAX_SHOWN_ENV)
      .map(({ name, value }) => `${printable(name)}=${printable(value)}`);
    const more =
      request.env.length > MAX_SHOWN_ENV ? ` and ${request.env.length - MAX_SHOWN_ENV} more` : "";
    lines.push(`  env: ${shown.join(" ")}${more}`);
  }
  return lines;
}
