import type { RequestPermissionRequest } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { printable } from "acp-terminal";

/** A value as one line of JSON, every character visible (printable), never cut. */
const json = (value: unknown): string => printable(JSON.stringify(value) ?? "null");
/** A string as itself, anything else as JSON. */
const text = (value: unknown): string =>
  typeof value === "string" ? printable(value) : json(value);

/**
 * What a v2 permission is about, as lines under its title: the description, and the subject,
 * which is what the person really approves (a title can say "Read README.md" over the command
 * `rm -rf "$HOME"`): a command and its cwd, a tool call with its kind, title and input, or an
 * unknown subject shown whole as JSON.
 */
export function describeV2Subject(request: RequestPermissionRequest): string[] {
  const lines: string[] = [];
  if (typeof request.description === "string" && request.description !== "") {
    lines.push(`  description: ${printable(request.description)}`);
  }
  const subject: unknown = request.subject;
  if (typeof subject !== "object" || subject === null) {
    lines.push("  subject: none given (only the title above says what this is)");
    return lines;
  }
  const field = (name: string): unknown => {
    const value: unknown = Reflect.get(subject, name);
    return value;
  };
  const type = field("type");
  if (type === "command") {
    lines.push(`  command: ${text(field("command"))}`, `  cwd: ${text(field("cwd"))}`);
  } else if (type === "tool_call") {
    lines.push(`  tool call: ${json(field("toolCall"))}`);
  } else {
    lines.push(`  subject of type ${json(type)}, not understood: ${json(subject)}`);
  }
  return lines;
}
