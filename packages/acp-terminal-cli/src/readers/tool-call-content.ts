import type { DiffShown, ToolCallContentShown } from "../view/renderer.js";

/** Diffs of one tool call read at most. */
const MAX_DIFFS = 64;

/** A field of an object read from the wire, unknown until checked. */
function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

/**
 * A tool call's content as shown: the text of its `{type: "content"}` items whose block is text,
 * joined by newlines, the ids of its `{type: "terminal"}` items, and its `{type: "diff"}` items
 * (v1: `path`, `oldText`, `newText`; v2: `changes` and a `patch`). Other items (images, a later
 * version's) are not shown.
 */
export function shownContent(items: readonly unknown[]): ToolCallContentShown {
  const texts: string[] = [];
  const terminalIds: string[] = [];
  const diffs: DiffShown[] = [];
  for (const item of items) {
    const type = field(item, "type");
    if (type === "diff") {
      const diff = diffOfItem(item);
      if (diff !== undefined && diffs.length < MAX_DIFFS) {
        diffs.push(diff);
      }
    } else if (type === "terminal") {
      const terminalId = field(item, "terminalId");
      if (typeof terminalId === "string") {
        terminalIds.push(terminalId);
      }
    } else if (type === "content") {
      const block = field(item, "content");
      const text = field(block, "text");
      if (field(block, "type") === "text" && typeof text === "string") {
        texts.push(text);
      }
    }
  }
  return {
    text: texts.length === 0 ? undefined : texts.join("\n"),
    terminalIds,
    ...(diffs.length === 0 ? {} : { diffs }),
  };
}

/** A diff item of either version, or undefined when it has neither shape. */
function diffOfItem(item: unknown): DiffShown | undefined {
  const path = field(item, "path");
  const newText = field(item, "newText");
  const oldText = field(item, "oldText");
  if (typeof path === "string" && typeof newText === "string") {
    return { path, oldText: typeof oldText === "string" ? oldText : null, newText };
  }
  const patch = field(field(item, "patch"), "text");
  if (typeof patch === "string") {
    const changes = field(item, "changes");
    const first: unknown = Array.isArray(changes) ? changes[0] : undefined;
    const changed = field(first, "path");
    return { path: typeof changed === "string" ? changed : "", patch };
  }
  return undefined;
}

/** `{ inputDiff }` for a tool call event when its raw input describes an edit, else nothing. */
export function inputDiff(rawInput: unknown): { inputDiff?: DiffShown } {
  const diff = diffOfRawInput(rawInput);
  return diff === undefined ? {} : { inputDiff: diff };
}

/**
 * The edit a tool call's raw input describes, for an agent that sends no diff item: claude's
 * Edit (`file_path`, `old_string`, `new_string`: the strings replaced, without the file around
 * them), or a patch (`patch`, or an `input` holding `*** Begin Patch`). A whole file written
 * (`content`) is not a diff: what it replaces is unknown.
 */
export function diffOfRawInput(rawInput: unknown): DiffShown | undefined {
  const path = field(rawInput, "file_path");
  const oldString = field(rawInput, "old_string");
  const newString = field(rawInput, "new_string");
  if (typeof path === "string" && typeof oldString === "string" && typeof newString === "string") {
    return { path, oldText: oldString, newText: newString };
  }
  const patch = field(rawInput, "patch") ?? field(rawInput, "input");
  if (typeof patch === "string" && /^(\*\*\* Begin Patch|--- |diff --git )/m.test(patch)) {
    return { path: "", patch };
  }
  return undefined;
}

/** The text of a content block (a message's, a thought's), or undefined when it is not text. */
export function textOfBlock(block: unknown): string | undefined {
  const text = field(block, "text");
  return field(block, "type") === "text" && typeof text === "string" ? text : undefined;
}
