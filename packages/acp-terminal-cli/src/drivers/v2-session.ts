import type { SessionUpdate as V1SessionUpdate } from "@agentclientprotocol/sdk";
import type {
  BackgroundWork,
  SessionUpdate,
  ToolCallContent,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { ExitStatus } from "acp-terminal";
import type { TerminalUpdate } from "acp-terminal/protocol";
import { AgentTerminal, clampSize } from "../view/agent-terminal.js";
import type { TerminalRecord } from "../render/format.js";
import type { BackgroundItem, Renderer } from "../view/renderer.js";
import type { TerminalLimits } from "../command/terminal-limits.js";

/** Content items of one tool call kept (each `tool_call_content_chunk` appends one). */
const MAX_TOOL_CALL_ITEMS = 64;
/** Tool calls and messages remembered (for upserts): the oldest are forgotten beyond this. */
const MAX_REMEMBERED = 1024;
/** Characters of an id (terminal, tool call, message) followed: a longer one is not followed. */
export const MAX_ID_CHARS = 256;
/** Characters of one text content item of a tool call kept (it is shown as its last lines). */
const MAX_TEXT_CHARS = 16 * 1024;
/** Background items shown of one list. */
const MAX_BACKGROUND_ITEMS = 100;
/** Characters of a command or title kept for display. */
const MAX_LABEL_CHARS = 200;
/** Characters of a cwd kept. */
const MAX_PATH_CHARS = 4096;

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
 * An ACP v2 session as the CLI shows it: reads the agent's `session/update`s and drives the same
 * renderers as v1. Agent-owned terminals are held as `AgentTerminal`s (an emulator each, at their
 * advertised size): `terminal_update` upserts their command, cwd, size, cancel capability, output
 * snapshot (which replaces what was shown) and exit status; `terminal_output_chunk` appends. A
 * chunk for a terminal not announced yet creates it, with its fields unknown until announced.
 * Tool call upserts reach a text renderer in v1's shape; a JSON renderer gets every update except
 * the terminal ones as the agent sent it. Unknown (and `_`-prefixed) variants are passed on to
 * JSON and otherwise ignored.
 *
 * Bounded: it follows at most `maxTerminals` running terminals and `maxTotalTerminals` in all
 * (the flags that bound v1's), each holding at most its output byte limit, an exited one only its
 * screen's text; terminals beyond are ignored, with one notice.
 */
export class V2Session {
  private readonly terminals = new Map<string, AgentTerminal>();
  private readonly records = new Map<string, TerminalRecord>();
  private readonly toolCalls = new Map<
    string,
    { title?: string | undefined; content: ToolCallContent[] }
  >();
  private readonly messages = new Map<string, number>();
  private running = 0;
  private ignoredTerminals = 0;
  private readonly ignoredIds = new Set<string>();
  /** The last background list shown; none at first (an empty first list is not news). */
  private background = "[]";

  constructor(
    private readonly renderer: Renderer,
    private readonly limits: TerminalLimits,
  ) {}

  /** Terminals followed that have not exited, for Ctrl-C. */
  runningTerminalIds(): string[] {
    return [...this.terminals.values()]
      .filter((terminal) => terminal.exitStatus === undefined)
      .map((terminal) => terminal.terminalId);
  }

  terminalRecords(): TerminalRecord[] {
    return [...this.records.values()];
  }

  update(update: SessionUpdate): void {
    if (isUpdate(update, "terminal_update")) {
      return this.terminalUpdate(update);
    }
    if (isUpdate(update, "terminal_output_chunk")) {
      return this.terminalChunk(update);
    }
    if (isUpdate(update, "state_update")) {
      this.state("background" in update ? update.background : undefined);
    }
    if (this.renderer.rawUpdates === true) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- --json writes the v2 update as it came; the JSON renderer only serializes it
      this.renderer.sessionUpdate(update as unknown as V1SessionUpdate, "v2");
      return;
    }
    if (isUpdate(update, "agent_message_chunk")) {
      this.messageText(update);
    } else if (isUpdate(update, "agent_message")) {
      this.wholeMessage(update);
    } else if (isUpdate(update, "tool_call_update")) {
      this.toolCallUpdate(update);
    } else if (isUpdate(update, "tool_call_content_chunk")) {
      this.toolCallChunk(update);
    }
  }

  private terminalUpdate(update: TerminalUpdate): void {
    const found = this.terminal(update.terminalId, false);
    if (found === undefined) {
      return;
    }
    const { terminal, isNew } = found;
    let changed = false;
    if (update.command !== undefined) {
      terminal.command = update.command === null ? undefined : label(update.command);
      changed = true;
      const record = this.records.get(terminal.terminalId);
      if (record !== undefined) {
        record.command = terminal.command ?? "";
      }
    }
    if (update.cwd !== undefined) {
      terminal.cwd = update.cwd === null ? undefined : label(update.cwd, MAX_PATH_CHARS);
      changed = true;
    }
    if (update.size !== undefined) {
      terminal.resize(clampSize(update.size));
      changed = true;
    }
    if (update.capabilities !== undefined) {
      const cancel = update.capabilities?.cancel;
      terminal.cancellable =
        terminal.exitStatus === undefined && typeof cancel === "object" && cancel !== null;
      changed = true;
    }
    if (isNew) {
      this.announce(terminal);
    } else if (changed) {
      this.renderer.agentTerminalChanged(terminal);
    }
    if (update.output !== undefined && update.output !== null && !terminal.frozen) {
      terminal.replace(decodeBase64(update.output.data));
      this.renderer.agentTerminalReplaced(terminal);
    }
    if (
      typeof update.exitStatus === "object" &&
      update.exitStatus !== null &&
      terminal.exitStatus === undefined
    ) {
      this.exited(terminal, update.exitStatus);
    }
  }

  private terminalChunk(chunk: { terminalId: string; data: string }): void {
    const found = this.terminal(chunk.terminalId, true);
    if (found === undefined || found.terminal.frozen) {
      return;
    }
    found.terminal.append(decodeBase64(chunk.data));
    this.renderer.terminalOutput(chunk.terminalId);
  }

  /** The terminal, created (and announced to the renderer) when new and within the limits. */
  private terminal(
    terminalId: unknown,
    announce: boolean,
  ): { terminal: AgentTerminal; isNew: boolean } | undefined {
    if (typeof terminalId !== "string") {
      return undefined;
    }
    const known = this.terminals.get(terminalId);
    if (known === undefined && terminalId.length > MAX_ID_CHARS) {
      this.ignore(terminalId.slice(0, MAX_ID_CHARS));
      return undefined;
    }
    if (known !== undefined) {
      return { terminal: known, isNew: false };
    }
    if (
      this.running >= this.limits.maxTerminals ||
      this.terminals.size >= this.limits.maxTotalTerminals
    ) {
      this.ignore(terminalId);
      return undefined;
    }
    const terminal = new AgentTerminal(terminalId);
    this.terminals.set(terminalId, terminal);
    this.records.set(terminalId, { terminalId, command: "" });
    this.running++;
    if (announce) {
      this.announce(terminal);
    }
    return { terminal, isNew: !announce };
  }

  /**
   * Tells the renderer of a new terminal. A v2 tool call may show a terminal before it is
   * announced; a text renderer only attaches terminals it knows, so it hears that content again.
   */
  private announce(terminal: AgentTerminal): void {
    this.renderer.agentTerminalCreated(terminal);
    if (this.renderer.rawUpdates === true) {
      return;
    }
    for (const [toolCallId, call] of this.toolCalls) {
      const shows = call.content.some(
        (item) =>
          item.type === "terminal" &&
          "terminalId" in item &&
          item.terminalId === terminal.terminalId,
      );
      if (shows) {
        this.renderer.sessionUpdate({
          sessionUpdate: "tool_call_update",
          toolCallId,
          // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- v2 to the v1 renderer: it reads text items, terminal ids and the status word, which both versions spell alike
          content: call.content as never,
        });
      }
    }
  }

  private ignore(terminalId: string): void {
    if (this.ignoredIds.has(terminalId)) {
      return;
    }
    if (this.ignoredIds.size < MAX_REMEMBERED) {
      this.ignoredIds.add(terminalId);
    }
    if (this.ignoredTerminals++ === 0) {
      this.renderer.notice(
        `acp-terminal: the agent has more terminals than shown (at most ${this.limits.maxTerminals} running and ${this.limits.maxTotalTerminals} in all: --max-terminals, --max-total-terminals); the others are ignored`,
      );
    }
  }

  private exited(
    terminal: AgentTerminal,
    status: { exitCode?: number | null; signal?: string | null },
  ): void {
    const exitStatus: ExitStatus = {
      exitCode: typeof status.exitCode === "number" ? status.exitCode : null,
      signal: typeof status.signal === "string" ? label(status.signal) : null,
    };
    terminal.exitStatus = exitStatus;
    terminal.cancellable = false;
    this.running--;
    const record = this.records.get(terminal.terminalId);
    if (record !== undefined) {
      record.exitStatus = exitStatus;
    }
    this.renderer.terminalExited(terminal.terminalId, exitStatus);
    terminal.freeze();
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
    this.renderer.background(items);
  }

  private messageText(chunk: {
    messageId: string;
    content: { type: string; text?: string };
  }): void {
    if (chunk.content.type !== "text" || typeof chunk.content.text !== "string") {
      return;
    }
    if (chunk.messageId.length <= MAX_ID_CHARS) {
      this.remember(
        this.messages,
        chunk.messageId,
        (this.messages.get(chunk.messageId) ?? 0) + chunk.content.text.length,
      );
    }
    this.renderer.sessionUpdate({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: chunk.content.text },
    });
  }

  /** A whole message replaces what came before: text already printed is not printed again. */
  private wholeMessage(update: { messageId: string; content?: unknown }): void {
    if (!Array.isArray(update.content)) {
      return;
    }
    const text = update.content
      .flatMap((block: unknown) =>
        typeof block === "object" &&
        block !== null &&
        "type" in block &&
        block.type === "text" &&
        "text" in block &&
        typeof block.text === "string"
          ? [block.text]
          : [],
      )
      .join("");
    const printed = this.messages.get(update.messageId) ?? 0;
    if (update.messageId.length <= MAX_ID_CHARS) {
      this.remember(this.messages, update.messageId, Math.max(printed, text.length));
    }
    if (text.length > printed) {
      this.renderer.sessionUpdate({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: text.slice(printed) },
      });
    }
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
      this.renderer.sessionUpdate({
        sessionUpdate: "tool_call",
        toolCallId: update.toolCallId,
        title: call.title ?? update.toolCallId,
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- v2 to the v1 renderer: it reads text items, terminal ids and the status word, which both versions spell alike
        status: (update.status ?? "pending") as "pending",
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- v2 to the v1 renderer: it reads text items, terminal ids and the status word, which both versions spell alike
        content: call.content as never,
      });
      return;
    }
    if (title !== undefined) {
      known.title = label(title);
    }
    if (content !== undefined) {
      known.content = content;
    }
    this.renderer.sessionUpdate({
      sessionUpdate: "tool_call_update",
      toolCallId: update.toolCallId,
      ...(title === undefined ? {} : { title: label(title) }),
      ...(update.status === undefined || update.status === null
        ? {}
        : // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- v2 to the v1 renderer: it reads text items, terminal ids and the status word, which both versions spell alike
          { status: update.status as "pending" }),
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- v2 to the v1 renderer: it reads text items, terminal ids and the status word, which both versions spell alike
      ...(content === undefined ? {} : { content: content as never }),
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
    this.renderer.sessionUpdate({
      sessionUpdate: "tool_call_update",
      toolCallId: chunk.toolCallId,
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- v2 to the v1 renderer: it reads text items, terminal ids and the status word, which both versions spell alike
      content: known.content as never,
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

function isWorkItem(work: unknown): work is BackgroundWork {
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
function boundedItem(item: ToolCallContent): ToolCallContent {
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

function decodeBase64(data: unknown): Uint8Array {
  return typeof data === "string" ? Buffer.from(data, "base64") : new Uint8Array(0);
}

function label(text: string, max = MAX_LABEL_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
