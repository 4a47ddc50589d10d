import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Renderer } from "../view/renderer.js";
import { inputDiff, shownContent, textOfBlock } from "./tool-call-content.js";

/**
 * An ACP v1 `session/update` as view events: the update as sent (for `--json`), then what it
 * means, for the variants shown (message and thought text, the plan, tool calls). The SDK parsed
 * it against the v1 schema before handing it over. Other variants are only passed on as sent.
 */
export function showV1Update(update: SessionUpdate, view: Renderer): void {
  view.rawUpdate(update, "v1");
  switch (update.sessionUpdate) {
    case "agent_message_chunk": {
      const text = textOfBlock(update.content);
      if (text !== undefined) {
        view.messageText(text);
      }
      return;
    }
    case "agent_thought_chunk": {
      const text = textOfBlock(update.content);
      if (text !== undefined) {
        view.thoughtText(text);
      }
      return;
    }
    case "plan":
      view.plan(
        update.entries.map(({ content, status, priority }) => ({ content, status, priority })),
      );
      return;
    case "tool_call":
      view.toolCallStarted({
        toolCallId: update.toolCallId,
        title: update.title,
        status: update.status ?? undefined,
        content: shownContent(update.content ?? []),
        ...inputDiff(update.rawInput),
      });
      return;
    case "tool_call_update":
      view.toolCallUpdated({
        toolCallId: update.toolCallId,
        title: update.title ?? undefined,
        status: update.status ?? undefined,
        content: update.content ? shownContent(update.content) : undefined,
        ...inputDiff(update.rawInput),
      });
      return;
    default:
      return;
  }
}
