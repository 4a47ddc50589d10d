import { printable } from "acp-terminal/approval";
import { diffLines } from "../view/diff-lines.js";
import type { PermissionSubject } from "../ask/permission-ask.js";
import type { DiffShown } from "../view/renderer.js";
import { diffOfRawInput, shownContent } from "./tool-call-content.js";

/** Diff lines a question shows at most, and characters of each. */
const QUESTION_DIFF_LINES = 24;
const QUESTION_LINE_CHARS = 160;
/** Fields of a raw input a question lists at most, and characters of each value. */
const MAX_INPUT_FIELDS = 8;
const MAX_INPUT_VALUE_CHARS = 300;

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;

/**
 * The subject of a v1 request (`toolCall`) or a v2 one (`subject`: `command`, `tool_call`, or
 * another type). `known` are the diffs an update showed for the same tool call, for an agent that
 * leaves them out of the request (codex's edits).
 */
export function permissionSubject(
  request: { toolCall?: unknown; subject?: unknown },
  known: readonly DiffShown[] = [],
): PermissionSubject {
  const subject = request.subject;
  if (subject !== undefined) {
    const type = field(subject, "type");
    if (type === "command") {
      const line = field(subject, "command");
      const cwd = field(subject, "cwd");
      return {
        kind: "execute",
        command: typeof line === "string" ? { line } : undefined,
        cwd: typeof cwd === "string" ? cwd : undefined,
        paths: [],
        diffs: [],
        rawInput: undefined,
      };
    }
    if (type !== "tool_call") {
      return { ...ofToolCall(undefined, known), unknown: subject };
    }
    return ofToolCall(field(subject, "toolCall"), known);
  }
  return ofToolCall(request.toolCall, known);
}

function ofToolCall(toolCall: unknown, known: readonly DiffShown[]): PermissionSubject {
  const kind = field(toolCall, "kind");
  const name = field(toolCall, "name");
  const rawInput = field(toolCall, "rawInput");
  const content = field(toolCall, "content");
  const fromContent = shownContent(Array.isArray(content) ? content : []).diffs ?? [];
  const fromInput = diffOfRawInput(rawInput);
  const diffs =
    fromContent.length > 0 ? fromContent : fromInput !== undefined ? [fromInput] : [...known];
  const locations = field(toolCall, "locations");
  const paths = [
    ...(Array.isArray(locations) ? locations.map((l) => field(l, "path")) : []),
    ...diffs.map((d) => d.path),
  ].filter((p, i, all): p is string => typeof p === "string" && p !== "" && all.indexOf(p) === i);
  const line = field(rawInput, "command") ?? field(rawInput, "cmd");
  const cwd = field(rawInput, "cwd");
  const command =
    typeof line === "string"
      ? { line }
      : Array.isArray(line) && line.length > 0 && line.every((w) => typeof w === "string")
        ? { argv: line as string[] }
        : undefined;
  return {
    kind: typeof kind === "string" ? kind : undefined,
    ...(typeof name === "string" ? { tool: name } : {}),
    command,
    cwd: typeof cwd === "string" ? cwd : undefined,
    paths,
    diffs,
    rawInput,
  };
}

/**
 * The subject as lines under a permission question, what a person needs to decide, every
 * character visible and bounded, never raw JSON: the command and where it runs, that the agent
 * runs it itself; the files it edits with a diff, or reads; else the tool's kind and its input,
 * a field a line.
 */
export function describeSubject(subject: PermissionSubject): string[] {
  const lines: string[] = [];
  if (subject.unknown !== undefined) {
    const type = field(subject.unknown, "type");
    lines.push(`  subject of type ${printable(String(type))}, not understood:`);
    lines.push(...inputLines(subject.unknown));
    return lines;
  }
  if (subject.command !== undefined) {
    const words =
      "line" in subject.command
        ? subject.command.line
        : subject.command.argv
            .map((w) => (/^[\w./:=@%+,-]+$/.test(w) ? w : JSON.stringify(w)))
            .join(" ");
    lines.push(`  command: ${printable(words)}`);
    if (subject.cwd !== undefined) {
      lines.push(`  cwd: ${printable(subject.cwd)}`);
    }
    lines.push("  (the agent runs it itself, not in acp-terminal's terminals)");
    return lines;
  }
  if (subject.diffs.length > 0) {
    lines.push(
      ...diffLines(subject.diffs, {
        color: false,
        maxLines: QUESTION_DIFF_LINES,
        maxLineChars: QUESTION_LINE_CHARS,
      }),
    );
    return lines;
  }
  for (const path of subject.paths.slice(0, MAX_INPUT_FIELDS)) {
    lines.push(`  ${subject.kind === "read" ? "reads" : "file"}: ${printable(path)}`);
  }
  if (subject.kind !== undefined && subject.kind !== "read") {
    lines.push(`  kind: ${printable(subject.kind)}`);
  }
  if (subject.paths.length === 0 && subject.rawInput !== undefined) {
    lines.push(...inputLines(subject.rawInput));
  }
  return lines;
}

/** An input as `key: value` lines (nested values as compact text), bounded. */
function inputLines(input: unknown): string[] {
  if (typeof input !== "object" || input === null) {
    return input === undefined ? [] : [`  input: ${cut(printable(String(input)))}`];
  }
  const entries = Object.entries(input).filter(([key]) => key !== "type");
  const lines = entries.slice(0, MAX_INPUT_FIELDS).map(([key, value]) => {
    const text = typeof value === "string" ? value : compactText(value);
    return `  ${printable(key)}: ${cut(printable(text))}`;
  });
  if (entries.length > MAX_INPUT_FIELDS) {
    lines.push(`  … ${entries.length - MAX_INPUT_FIELDS} more fields`);
  }
  return lines;
}

function cut(text: string): string {
  return text.length > MAX_INPUT_VALUE_CHARS
    ? `${text.slice(0, MAX_INPUT_VALUE_CHARS - 1)}… (${text.length} characters)`
    : text;
}

/** A value as compact JSON; one too deeply nested to turn into text says so instead of throwing. */
function compactText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return "(not shown: nested too deeply to show)";
  }
}
