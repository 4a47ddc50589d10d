import { describeAction } from "../host/authorize.js";
import type { ApprovalRequest } from "../host/types.js";

/**
 * The most characters a question may take to show a request whole (about 100 full lines of 80
 * columns). Nothing of a request is ever cut: one longer than this is refused without asking.
 */
export const MAX_QUESTION_CHARS = 8000;

/**
 * Characters a person cannot see or tell apart, written as escapes: control characters (escape
 * sequences could redraw the question, a carriage return hide what precedes it), format characters
 * (bidi overrides reorder what is read, zero-width ones hide), spaces other than U+0020, line and
 * paragraph separators, surrogates, private and unassigned code points, and the brackets used to
 * show runs of blanks (so an agent cannot forge one).
 */
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u034f\u115f\u1160\u3164\uffa0\ufe00-\ufe0f\u{e0100}-\u{e01ef}\u27e8\u27e9]/gu;

function escape(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u{${code.toString(16).padStart(4, "0")}}`;
}

/**
 * Agent-chosen text as a person can read it, whole: invisible characters escaped (`\x1b`,
 * `\u{202e}`), a run of spaces shown with its length (`⟨600 spaces⟩`: blanks cannot push the rest
 * of a command out of sight), and a line break inside the text continued on a marked line
 * (`  │ `), so a line of the text can never pass for a line of the question.
 */
export function printable(text: string): string {
  return text
    .replace(INVISIBLE, escape)
    .replace(/ {2,}/g, (run) => `⟨${run.length} spaces⟩`)
    .replace(/\\x0a(?=.)/g, "\\x0a\n    │ ");
}

/** Bytes of a stdin write as text, or as hex when they are not UTF-8 (nothing replaced unseen). */
function printableData(data: Uint8Array): string {
  try {
    return printable(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch {
    return `(not UTF-8, hex) ${Buffer.from(data).toString("hex")}`; // invalid UTF-8: show every byte
  }
}

const SANDBOX_WORDS = {
  "read-only": "read-only (it can write nothing but a private /tmp; no network)",
  "workspace-write":
    "workspace-write (it can write the workspace, not its .git, and a private /tmp; no network)",
  off: "off (it can write wherever you can)",
} as const;

/**
 * A request as lines for a person to judge, every character visible and nothing cut: what will
 * run (the words, then the absolute program or the shell that runs the line), where, the
 * environment the agent set (all of it), and the sandbox. Writes show all their data.
 */
export function describeAuthorizeRequest(request: ApprovalRequest): string[] {
  const lines = [printable(describeAction(request))];
  if (request.action === "write_file") {
    lines.push(`  file: ${printable(request.path)}`);
    lines.push(`  cwd: ${printable(request.cwd)}`);
    if (request.protected !== undefined) {
      lines.push(`  protected: ${printable(request.protected)}`);
    }
    return lines;
  }
  if (request.action === "write") {
    lines.push(`  data: ${printableData(request.data)}`);
  }
  if (request.shell) {
    lines.push(`  runs: the line above, by ${printable(request.argv[0] ?? "the shell")} -c`);
  } else {
    lines.push(
      request.program === null
        ? `  program: ${printable(request.command)} (not found)`
        : `  program: ${printable(request.program)}`,
    );
  }
  lines.push(`  cwd: ${printable(request.cwd)}`);
  if (request.env.length > 0) {
    const shown = request.env.map(({ name, value }) => `${printable(name)}=${printable(value)}`);
    lines.push(`  env: ${shown.join(" ")}`);
  }
  lines.push(`  sandbox: ${SANDBOX_WORDS[request.sandbox]}`);
  return lines;
}

/** Why a request cannot be asked about (too long to show whole), or undefined. */
export function unshowable(request: ApprovalRequest): string | undefined {
  const chars = describeAuthorizeRequest(request).join("\n").length;
  return chars > MAX_QUESTION_CHARS
    ? `not asked: it takes ${chars} characters to show whole, more than the ${MAX_QUESTION_CHARS} a question shows (nothing is cut from a question); split it, or put a long script in a file`
    : undefined;
}
