import type { PlanItem, ToolCallShown } from "../view/renderer.js";
import { TerminalEvents, type TerminalListener } from "./terminal-events.js";

/** A v1 tool call status for a v2 one: v1 has no `cancelled` (failed) nor `paused` (running). */
function v1Status(status: string | undefined): string | undefined {
  switch (status) {
    case "pending":
    case "in_progress":
    case "completed":
    case "failed":
      return status;
    case "cancelled":
      return "failed";
    case "paused":
      return "in_progress";
    default:
      return undefined;
  }
}

/** A tool call as a v1 update: its text and terminals (the proxy then shows the terminals as text). */
function v1ToolCall(
  sessionUpdate: "tool_call" | "tool_call_update",
  call: ToolCallShown,
): Record<string, unknown> {
  const status = v1Status(call.status);
  const content =
    call.content === undefined
      ? undefined
      : [
          ...(call.content.text === undefined
            ? []
            : [{ type: "content", content: { type: "text", text: call.content.text } }]),
          ...call.content.terminalIds.map((terminalId) => ({ type: "terminal", terminalId })),
        ];
  return {
    sessionUpdate,
    toolCallId: call.toolCallId,
    ...(call.title === undefined ? {} : { title: call.title }),
    ...(sessionUpdate === "tool_call" ? { kind: "execute" } : {}),
    ...(status === undefined ? {} : { status }),
    ...(content === undefined ? {} : { content }),
  };
}

/**
 * A v2 session's view events said to a v1 editor: the agent's message and thought text, its plan
 * and its tool calls become v1 `session/update`s (`send`), and its terminals go to `terminals`
 * (the proxy's tool-call terminals, which show them as text in the tool calls). What v1 has no
 * words for (background work, state) is not said.
 */
export class V1Emitter extends TerminalEvents {
  constructor(
    terminals: TerminalListener,
    private readonly send: (update: Record<string, unknown>) => void,
  ) {
    super(terminals);
  }

  override messageText(text: string): void {
    this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  override thoughtText(text: string): void {
    this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text } });
  }

  override plan(items: PlanItem[]): void {
    this.send({
      sessionUpdate: "plan",
      entries: items.map((item) => ({
        content: item.content,
        status: item.status,
        priority: item.priority ?? "medium",
      })),
    });
  }

  override toolCallStarted(call: ToolCallShown & { title: string }): void {
    this.send(v1ToolCall("tool_call", call));
  }

  override toolCallUpdated(call: ToolCallShown): void {
    this.send(v1ToolCall("tool_call_update", call));
  }
}
