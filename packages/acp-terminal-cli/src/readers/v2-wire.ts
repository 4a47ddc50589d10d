import type {
  BackgroundWork,
  ToolCallContent,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";

/** Characters of one text content item of a tool call kept (it is shown as its last lines). */
const MAX_TEXT_CHARS = 16 * 1024;

/** A background work item: a terminal or tool call with its id, or another kind (`_`-prefixed). */
export function isWorkItem(work: unknown): work is BackgroundWork {
  if (typeof work !== "object" || work === null) {
    return false;
  }
  const type: unknown = Reflect.get(work, "type");
  const terminalId: unknown = Reflect.get(work, "terminalId");
  const toolCallId: unknown = Reflect.get(work, "toolCallId");
  if (type === "terminal") {
    return typeof terminalId === "string";
  }
  if (type === "tool_call") {
    return typeof toolCallId === "string";
  }
  return typeof type === "string";
}

/** A text content item cut to its last MAX_TEXT_CHARS characters (what is shown is its last lines). */
export function boundedItem(item: ToolCallContent): ToolCallContent {
  if (item.type !== "content") {
    return item;
  }
  const block: unknown = item.content;
  if (
    typeof block !== "object" ||
    block === null ||
    !("type" in block) ||
    block.type !== "text" ||
    !("text" in block) ||
    typeof block.text !== "string" ||
    block.text.length <= MAX_TEXT_CHARS
  ) {
    return item;
  }
  return {
    ...item,
    content: { ...block, type: "text", text: block.text.slice(-MAX_TEXT_CHARS) },
  };
}

/** Base64 bytes (none when not a string). */
export function decodeBase64(data: unknown): Uint8Array {
  return typeof data === "string" ? Buffer.from(data, "base64") : new Uint8Array(0);
}
