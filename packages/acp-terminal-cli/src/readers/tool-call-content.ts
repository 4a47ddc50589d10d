import type { ToolCallContentShown } from "../view/renderer.js";

/** A field of an object read from the wire, unknown until checked. */
function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

/**
 * A tool call's content as shown: the text of its `{type: "content"}` items whose block is text,
 * joined by newlines, and the ids of its `{type: "terminal"}` items. Both ACP versions spell
 * these two items alike; other items (diffs, images, a later version's) are not shown.
 */
export function shownContent(items: readonly unknown[]): ToolCallContentShown {
  const texts: string[] = [];
  const terminalIds: string[] = [];
  for (const item of items) {
    const type = field(item, "type");
    if (type === "terminal") {
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
  return { text: texts.length === 0 ? undefined : texts.join("\n"), terminalIds };
}

/** The text of a content block (a message's, a thought's), or undefined when it is not text. */
export function textOfBlock(block: unknown): string | undefined {
  const text = field(block, "text");
  return field(block, "type") === "text" && typeof text === "string" ? text : undefined;
}
