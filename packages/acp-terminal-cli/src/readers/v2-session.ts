import type {
  SessionUpdate,
  ToolCallContent,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { TerminalUpdate } from "acp-terminal/protocol";
import type { TerminalLimits } from "../command/terminal-limits.js";
import type {
  BackgroundItem,
  DiffShown,
  PlanItem,
  Renderer,
  TerminalRecord,
} from "../view/renderer.js";
import { AgentTerminals, label, MAX_ID_CHARS } from "./agent-terminals.js";
import { inputDiff, shownContent, textOfBlock } from "./tool-call-content.js";
import { boundedItem, decodeBase64, isWorkItem } from "./v2-wire.js";

/** Content items of one tool call kept (each `tool_call_content_chunk` appends one). */
const MAX_TOOL_CALL_ITEMS = 64;
/** Tool calls and messages remembered (for upserts): the oldest are forgotten beyond this. */
const MAX_REMEMBERED = 1024;
/** Background items shown of one list. */
const MAX_BACKGROUND_ITEMS = 100;

type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;

/**
 * Narrows a session update by its tag. The SDK parsed the notification against the v2 schema
 * (zUpdateSessionNotification) before handing it over, so a known tag means that variant's shape;
 * the catch-all variant for custom tags (`sessionUpdate: string`) is what keeps `switch` from
 * narrowing by itself.
 */
function isUpdate<K extends SessionUpdate["sessionUpdate"]>(
  update: SessionUpdate,
  kind: K,
): update is Extract<SessionUpdate, { sessionUpdate: K }> {
  return update.sessionUpdate === kind;
}

/**
 * An ACP v2 session's `session/update`s as view events. Agent-owned terminals go to
 * `AgentTerminals`: `terminal_update` reports a terminal's command, cwd, size, cancel capability,
 * output snapshot and exit status, `terminal_output_chunk` appends. Every other update is passed
 * on as sent (`rawUpdate`, unknown and `_`-prefixed variants included), then told as what it
 * means: message text (a whole `agent_message` after its chunks adds only what was not shown),
 * thoughts, the plan, tool calls (upserts by id, content chunks appended), and background work
 * (a `state_update` that changes the list). Bounded: ids past MAX_ID_CHARS are not followed, and
 * tool calls, messages and content items are remembered up to their caps.
 */
export class V2Session {
  private readonly terminals: AgentTerminals;
  private readonly toolCalls = new Map<
    string,
    { title?: string | undefined; content: ToolCallContent[] }
  >();
  private readonly messages = new Map<string, number>();
  /** The last background list shown; none at first (an empty first list is not news). */
  private background = "[]";

  constructor(
    private readonly view: Renderer,
    limits: TerminalLimits,
  ) {
    this.terminals = new AgentTerminals(view, limits, "v2");
  }

  /** Terminals followed that have not exited, for Ctrl-C. */
  runningTerminalIds(): string[] {
    return this.terminals.runningIds();
  }

  terminalRecords(): TerminalRecord[] {
    return this.terminals.terminalRecords();
  }

  update(update: SessionUpdate): void {
    if (isUpdate(update, "terminal_update")) {
      return this.terminalUpdate(update);
    }
    if (isUpdate(update, "terminal_output_chunk")) {
      return this.chunk(update.terminalId, update.data);
    }
    if (isUpdate(update, "state_update")) {
      this.state("background" in update ? update.background : undefined);
    }
    this.view.rawUpdate(update, "v2");
    if (isUpdate(update, "agent_message_chunk")) {
      this.messageText(update);
    } else if (isUpdate(update, "agent_message")) {
      this.wholeMessage(update);
    } else if (isUpdate(update, "agent_thought_chunk")) {
      const text = textOfBlock(update.content);
      if (text !== undefined) {
        this.view.thoughtText(text);
      }
    } else if (isUpdate(update, "plan_update")) {
      this.plan(update.plan);
    } else if (isUpdate(update, "tool_call_update")) {
      this.toolCallUpdate(update);
    } else if (isUpdate(update, "tool_call_content_chunk")) {
      this.toolCallChunk(update);
    }
  }

  /** The diffs the tool call's content shows, for a permission request that leaves them out. */
  diffsOf(toolCallId: string): DiffShown[] {
    const known = this.toolCalls.get(toolCallId);
    return known === undefined ? [] : (shownContent(known.content).diffs ?? []);
  }

  /**
   * A permission request's tool call (its subject): shown when no update announced it (Gemini
   * CLI asks about an edit it reports nowhere else), as if an update had; known ones are left as
   * they are.
   */
  announce(toolCall: unknown): void {
    const toolCallId: unknown = Reflect.get(Object(toolCall), "toolCallId");
    if (typeof toolCallId !== "string" || this.toolCalls.has(toolCallId)) {
      return;
    }
    const field = (name: string): unknown => Reflect.get(Object(toolCall), name);
    const title = field("title");
    const content = field("content");
    this.toolCallUpdate({
      sessionUpdate: "tool_call_update",
      toolCallId,
      ...(typeof title === "string" ? { title } : {}),
      status: "pending",
      ...(Array.isArray(content) ? { content: content.filter(isContentItem) } : {}),
      rawInput: field("rawInput"),
    });
  }

  /** A terminal's output chunk (base64, or decoded), appended: from an update, or the driver's chunk lane. */
  chunk(terminalId: string, data: string | Uint8Array): void {
    this.terminals.append(terminalId, typeof data === "string" ? decodeBase64(data) : data);
  }

  private terminalUpdate(update: TerminalUpdate): void {
    const cancel = update.capabilities?.cancel;
    this.terminals.report(update.terminalId, {
      ...(update.command === undefined ? {} : { command: update.command }),
      ...(update.cwd === undefined ? {} : { cwd: update.cwd }),
      ...(update.size === undefined ? {} : { size: update.size }),
      ...(update.capabilities === undefined
        ? {}
        : { cancellable: typeof cancel === "object" && cancel !== null }),
      ...(update.output === undefined || update.output === null
        ? {}
        : { output: decodeBase64(update.output.data) }),
      ...(typeof update.exitStatus === "object" && update.exitStatus !== null
        ? { exitStatus: update.exitStatus }
        : {}),
    });
  }

  /** A malformed list (an item that is not a work item) counts as not reported, as the schema says. */
  private state(background: unknown): void {
    if (!Array.isArray(background) || !background.every(isWorkItem)) {
      return;
    }
    const items: BackgroundItem[] = background.slice(0, MAX_BACKGROUND_ITEMS).map((work) => {
      const item: BackgroundItem = { type: label(work.type) };
      if (work.type === "terminal" && typeof work.terminalId === "string") {
        item.terminalId = label(work.terminalId);
        const command = this.terminals.get(work.terminalId)?.command;
        if (command !== undefined) {
          item.label = command;
        }
      } else if (work.type === "tool_call" && typeof work.toolCallId === "string") {
        item.toolCallId = label(work.toolCallId);
        const title = this.toolCalls.get(work.toolCallId)?.title;
        if (title !== undefined) {
          item.label = title;
        }
      }
      return item;
    });
    const key = JSON.stringify(items);
    if (key === this.background) {
      return;
    }
    this.background = key;
    this.view.background(items, "v2");
  }

  private messageText(chunk: { messageId: string; content: unknown }): void {
    const text = textOfBlock(chunk.content);
    if (text === undefined) {
      return;
    }
    if (chunk.messageId.length <= MAX_ID_CHARS) {
      this.remember(
        this.messages,
        chunk.messageId,
        (this.messages.get(chunk.messageId) ?? 0) + text.length,
      );
    }
    this.view.messageText(text);
  }

  /** A whole message replaces what came before: text already printed is not printed again. */
  private wholeMessage(update: { messageId: string; content?: unknown }): void {
    if (!Array.isArray(update.content)) {
      return;
    }
    const text = update.content
      .flatMap((block: unknown) => {
        const blockText = textOfBlock(block);
        return blockText === undefined ? [] : [blockText];
      })
      .join("");
    const printed = this.messages.get(update.messageId) ?? 0;
    if (update.messageId.length <= MAX_ID_CHARS) {
      this.remember(this.messages, update.messageId, Math.max(printed, text.length));
    }
    if (text.length > printed) {
      this.view.messageText(text.slice(printed));
    }
  }

  /** A plan given as items; other kinds of plan (`_`-prefixed, later ones) are not shown. */
  private plan(plan: unknown): void {
    const entries: unknown = Reflect.get(Object(plan), "entries");
    if (Reflect.get(Object(plan), "type") !== "items" || !Array.isArray(entries)) {
      return;
    }
    const items: PlanItem[] = entries.flatMap((entry: unknown) => {
      const content: unknown = Reflect.get(Object(entry), "content");
      const status: unknown = Reflect.get(Object(entry), "status");
      return typeof content === "string" && typeof status === "string" ? [{ content, status }] : [];
    });
    this.view.plan(items);
  }

  private toolCallUpdate(update: ToolCallUpdate): void {
    if (update.toolCallId.length > MAX_ID_CHARS) {
      return;
    }
    const known = this.toolCalls.get(update.toolCallId);
    const content = Array.isArray(update.content)
      ? update.content.slice(-MAX_TOOL_CALL_ITEMS).map(boundedItem)
      : update.content === null
        ? []
        : undefined;
    const title = update.title ?? update.name ?? undefined;
    if (known === undefined) {
      const call = {
        title: title === undefined ? undefined : label(title),
        content: content ?? [],
      };
      this.remember(this.toolCalls, update.toolCallId, call);
      this.view.toolCallStarted({
        toolCallId: update.toolCallId,
        title: call.title ?? update.toolCallId,
        status: update.status ?? undefined,
        content: shownContent(call.content),
        ...inputDiff(update.rawInput),
      });
      return;
    }
    if (title !== undefined) {
      known.title = label(title);
    }
    if (content !== undefined) {
      known.content = content;
    }
    this.view.toolCallUpdated({
      toolCallId: update.toolCallId,
      title: title === undefined ? undefined : label(title),
      status: update.status ?? undefined,
      content: content === undefined ? undefined : shownContent(content),
      ...inputDiff(update.rawInput),
    });
  }

  private toolCallChunk(chunk: { toolCallId: string; content: ToolCallContent }): void {
    const known = this.toolCalls.get(chunk.toolCallId);
    if (known === undefined) {
      this.toolCallUpdate({
        sessionUpdate: "tool_call_update",
        toolCallId: chunk.toolCallId,
        content: [chunk.content],
      });
      return;
    }
    known.content = [...known.content, boundedItem(chunk.content)].slice(-MAX_TOOL_CALL_ITEMS);
    this.view.toolCallUpdated({
      toolCallId: chunk.toolCallId,
      content: shownContent(known.content),
    });
  }

  private remember<T>(map: Map<string, T>, key: string, value: T): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > MAX_REMEMBERED) {
      const oldest = map.keys().next();
      if (oldest.done !== true) {
        map.delete(oldest.value);
      }
    }
  }
}

/** A tool call content item as far as it is read here: an object with a `type`. */
function isContentItem(item: unknown): item is ToolCallContent {
  return typeof item === "object" && item !== null && typeof Reflect.get(item, "type") === "string";
}
