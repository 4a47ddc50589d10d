import { describeAction } from "../host/authorize.js";
import type { ApprovalRequest } from "../host/types.js";
import { printable, printableCut } from "./visible-text.js";

/**
 * The most characters a question may take to show a request whole (about 100 full lines of 80
 * columns), on every surface that asks (a TTY, an MCP elicitation, a proxy's editor). Nothing of
 * a request is ever cut: one longer than this is refused without asking.
 */
export const MAX_QUESTION_CHARS = 8000;

/** Characters of agent-chosen text a one-line message (a refusal) shows: it says the full length. */
const MAX_SHORT_CHARS = 200;

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
export function describeApprovalRequest(request: ApprovalRequest): string[] {
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

/** The name this module had before `acp-terminal/approval`: the same function. */
export const describeAuthorizeRequest = describeApprovalRequest;

/**
 * The whole question about a request, as every surface shows it: `The agent wants to run: <what>`
 * (`write`, `send`), then describeApprovalRequest's lines. `subject` replaces "The agent wants to"
 * for a command the agent has run another way (a terminal login: "The agent's login (--auth x)
 * wants to").
 */
export function approvalQuestion(request: ApprovalRequest, subject = "The agent wants to"): string {
  const [what, ...details] = describeApprovalRequest(request);
  const verb =
    request.action === "create" ? "run" : request.action === "write_file" ? "write" : "send";
  return [`${subject} ${verb}: ${what}`, ...details].join("\n");
}

/** Why a question cannot be asked (too long to show whole), or undefined. */
export function questionTooLong(question: string): string | undefined {
  return question.length > MAX_QUESTION_CHARS
    ? `not asked: it takes ${question.length} characters to show whole, more than the ${MAX_QUESTION_CHARS} a question shows (nothing is cut from a question); split it, or put a long script in a file`
    : undefined;
}

/** Why a request cannot be asked about (too long to show whole), or undefined. */
export function unshowable(request: ApprovalRequest): string | undefined {
  return questionTooLong(approvalQuestion(request));
}

/**
 * What a request would do, in one line for a refusal or a notice: every character visible, the
 * agent's text cut to 200 characters with its length said (a question shows it whole).
 */
export function shortApprovalAction(request: ApprovalRequest): string {
  if (request.action === "write_file") {
    return printableCut(request.path, MAX_SHORT_CHARS);
  }
  const command = printableCut([request.command, ...request.args].join(" "), MAX_SHORT_CHARS);
  switch (request.action) {
    case "create":
      return command;
    case "write":
      return `a ${request.data.byteLength}-byte write to the stdin of ${command}`;
    case "signal":
      return `${request.signal} to ${command}`;
  }
}
