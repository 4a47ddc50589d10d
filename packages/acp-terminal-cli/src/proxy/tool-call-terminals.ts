import type { ExitStatus } from "acp-terminal";
import type { TerminalLimits } from "../command/terminal-limits.js";
import { MAX_ID_CHARS } from "../readers/agent-terminals.js";
import { MetaTerminals, replacesOnTerminalOutput } from "../readers/v1-meta-terminals.js";
import type { MetaOutput } from "../readers/v1-meta-lane.js";
import type { AgentTerminal } from "../view/agent-terminal.js";
import type { SendToEditor } from "./editor-asker.js";
import { HostedTerminals } from "./hosted-terminals.js";
import { TerminalEvents, type TerminalListener } from "./terminal-events.js";
import { terminalText } from "./terminal-text.js";
import { field, isRecord } from "./json-rpc.js";

/** The most often a running command's tool call is sent again. */
export const LIVE_INTERVAL_MS = 100;
/** Tool calls followed for the terminals they show: the oldest are forgotten beyond this. */
const MAX_CALLS = 1024;
/** Terminals of one tool call shown as text (the rest stay as the agent sent them). */
const MAX_SHOWN_TERMINALS = 16;
/**
 * Characters of a tool call's own content (its text, diffs…) up to which it is sent again while
 * its terminals run: each live update repeats it, and a bigger one would multiply into megabytes
 * a second. Past it, the tool call gets its terminals' final screens only.
 */
const MAX_LIVE_CONTENT_CHARS = 64 * 1024;

/**
 * How the editor shows a terminal it does not run itself: as text (the proxy renders it), or in
 * the `_meta` dialect it declared (`terminal_output_delta` appends, `terminal_output` too, as Zed
 * reads it).
 */
export type EditorDialect = "text" | "terminal_output_delta" | "terminal_output";

/** What to do with an agent's `session/update`. */
export type Rewrite =
  { kind: "pass" } | { kind: "drop" } | { kind: "replace"; update: Record<string, unknown> };

const PASS: Rewrite = { kind: "pass" };
const TERMINAL_META_KEYS = [
  "terminal_info",
  "terminal_output",
  "terminal_output_delta",
  "terminal_exit",
];

/** A session's terminals the agent runs itself and reports in `_meta`. */
interface Reported {
  meta: MetaTerminals;
  terminals: Map<string, AgentTerminal>;
  listener: TerminalListener;
}

/** A tool call that shows terminals, as the agent last gave its content. */
interface Call {
  sessionId: string;
  toolCallId: string;
  content: unknown[];
  /** Keys of the terminals it shows (`terminalKey`). */
  terminals: string[];
  lastSentAt: number;
  timer: NodeJS.Timeout | undefined;
  /** Sent again while its terminals run (its own content is small enough to repeat). */
  live: boolean;
  /** `_meta` dialect: the terminals whose exit it was sent. */
  exitsSent: Set<string>;
}

const hostedKey = (terminalId: string) => `h\n${terminalId}`;
const reportedKey = (sessionId: string, terminalId: string) => `r\n${sessionId}\n${terminalId}`;
const callKey = (sessionId: string, toolCallId: string) => `${sessionId}\n${toolCallId}`;

/**
 * The terminals in the agent's tool calls, made into content the editor can show. A tool call's
 * `{type: "terminal"}` item naming one of the proxy's own terminals, or (when the editor does not
 * read that dialect) one the agent reports in `_meta`, becomes a text item (`terminalText`): sent
 * again while the command runs, at most every LIVE_INTERVAL_MS with its newest lines, and at once
 * with the whole final screen when it ends. An editor that declared the `_meta` dialect gets the
 * proxy's own terminals in it instead (`terminal_info`, the output as it comes, `terminal_exit`),
 * and the agent's reports unchanged. Terminals the editor runs itself are never touched.
 */
export class ToolCallTerminals {
  readonly #hosted: HostedTerminals;
  readonly #reported = new Map<string, Reported>();
  readonly #calls = new Map<string, Call>();
  readonly #callsOf = new Map<string, Set<string>>();
  #replaceOnOutput = false;

  constructor(
    private readonly options: {
      dialect: EditorDialect;
      /**
       * Every terminal a tool call shows is one the agent runs and reports (ACP v2: there are no
       * others), even before its first report.
       */
      agentOwnsTerminals?: boolean;
      liveLines: number;
      limits: TerminalLimits;
      send: SendToEditor;
      now?: () => number;
    },
  ) {
    this.#hosted = new HostedTerminals(options.dialect === "text", {
      changed: (terminalId) => this.#changed(hostedKey(terminalId)),
      ended: (terminalId) => this.#ended(hostedKey(terminalId)),
      isShown: (terminalId) => this.#callsOf.has(hostedKey(terminalId)),
    });
  }

  /** The events of the proxy's host (give them to `followHost`). */
  get hostEvents(): TerminalEvents {
    return this.#hosted.events;
  }

  /** Whether the agent's `_meta` reports are read here (the editor does not read them). */
  get readsMeta(): boolean {
    return this.options.dialect === "text";
  }

  /** The agent's name from its `initialize` answer: claude's `terminal_output` replaces. */
  agentIs(name: unknown): void {
    this.#replaceOnOutput = replacesOnTerminalOutput(name);
    for (const reported of this.#reported.values()) {
      reported.meta.replaceOnOutput = this.#replaceOnOutput;
    }
  }

  /** A `_meta` output report read by the fast lane (its line is dropped). */
  metaOutput(output: MetaOutput): void {
    this.#reportedOf(output.sessionId).meta.output(output.key, output.terminalId, output.bytes);
  }

  /**
   * What to do with a `tool_call` or `tool_call_update` of a session the editor opened: pass it,
   * drop it (a `_meta` report the editor does not read, shown by the proxy instead), or send it
   * with its terminals made into content the editor shows.
   */
  rewrite(sessionId: string, update: Record<string, unknown>): Rewrite {
    const kind = update["sessionUpdate"];
    const toolCallId = update["toolCallId"];
    if (
      (kind !== "tool_call" && kind !== "tool_call_update") ||
      typeof toolCallId !== "string" ||
      toolCallId.length > MAX_ID_CHARS
    ) {
      return PASS;
    }
    const meta = update["_meta"];
    if (this.readsMeta && TERMINAL_META_KEYS.some((key) => field(meta, key) !== undefined)) {
      this.#reportedOf(sessionId).meta.read({
        toolCallId,
        rawInput: update["rawInput"],
        _meta: meta,
      });
      if (onlyTerminalReport(update)) {
        return { kind: "drop" };
      }
    }
    const content = update["content"];
    if (!Array.isArray(content)) {
      return PASS;
    }
    const key = callKey(sessionId, toolCallId);
    const terminals = this.#shownTerminals(sessionId, content);
    if (terminals.length === 0) {
      this.#forget(key);
      return PASS;
    }
    const call = this.#follow(key, { sessionId, toolCallId, content, terminals });
    if (this.options.dialect === "text") {
      call.lastSentAt = this.#now();
      return { kind: "replace", update: { ...update, content: this.#content(call) } };
    }
    // What the terminal printed (and its exit) before the agent showed it follows this update.
    for (const terminal of terminals) {
      this.#changed(terminal);
    }
    return this.#withTerminalInfo(update, terminals);
  }

  /** Stops every timer (the proxy is ending). */
  dispose(): void {
    for (const call of this.#calls.values()) {
      clearTimeout(call.timer);
    }
    this.#calls.clear();
    this.#callsOf.clear();
  }

  #now(): number {
    return this.options.now?.() ?? performance.now();
  }

  /**
   * What hears of the terminals a session's agent reports: a reader of the agent's dialect
   * (`MetaTerminals` here; a v2 session's reader in v2-bridge.ts) tells it, and the tool calls that
   * show them are sent again.
   */
  reportedListener(sessionId: string): TerminalListener {
    return this.#reportedOf(sessionId).listener;
  }

  #reportedOf(sessionId: string): Reported {
    let reported = this.#reported.get(sessionId);
    if (reported === undefined) {
      const terminals = new Map<string, AgentTerminal>();
      const listener: TerminalListener = {
        reportedCreated: (terminal) => {
          terminals.set(terminal.terminalId, terminal);
          // A tool call may have shown it before its first report.
          this.#changed(reportedKey(sessionId, terminal.terminalId));
        },
        changed: (terminalId) => this.#changed(reportedKey(sessionId, terminalId)),
        exited: (terminalId) => this.#ended(reportedKey(sessionId, terminalId)),
      };
      reported = {
        meta: new MetaTerminals(
          new TerminalEvents(listener),
          this.options.limits,
          this.#replaceOnOutput,
        ),
        terminals,
        listener,
      };
      this.#reported.set(sessionId, reported);
    }
    return reported;
  }

  /** The keys of the terminals of `content` this proxy shows (its own; the agent's reported ones in text). */
  #shownTerminals(sessionId: string, content: readonly unknown[]): string[] {
    const keys: string[] = [];
    for (const item of content) {
      if (keys.length === MAX_SHOWN_TERMINALS) {
        break;
      }
      const terminalId = field(item, "terminalId");
      if (field(item, "type") !== "terminal" || typeof terminalId !== "string") {
        continue;
      }
      if (this.#hosted.has(terminalId)) {
        keys.push(hostedKey(terminalId));
      } else if (
        this.options.agentOwnsTerminals === true ||
        (this.readsMeta && this.#reported.get(sessionId)?.terminals.has(terminalId) === true)
      ) {
        keys.push(reportedKey(sessionId, terminalId));
      }
    }
    return keys;
  }

  #follow(key: string, given: Omit<Call, "lastSentAt" | "timer" | "exitsSent" | "live">): Call {
    const known = this.#calls.get(key);
    this.#forget(key);
    const call: Call = {
      ...given,
      lastSentAt: known?.lastSentAt ?? 0,
      timer: undefined,
      live:
        this.options.dialect !== "text" ||
        JSON.stringify(given.content).length <= MAX_LIVE_CONTENT_CHARS,
      exitsSent: known?.exitsSent ?? new Set(),
    };
    this.#calls.set(key, call);
    for (const terminal of call.terminals) {
      const calls = this.#callsOf.get(terminal) ?? new Set<string>();
      calls.add(key);
      this.#callsOf.set(terminal, calls);
    }
    if (this.#calls.size > MAX_CALLS) {
      const oldest = this.#calls.keys().next();
      if (oldest.done !== true) {
        this.#forget(oldest.value);
      }
    }
    return call;
  }

  #forget(key: string): void {
    const call = this.#calls.get(key);
    if (call === undefined) {
      return;
    }
    clearTimeout(call.timer);
    this.#calls.delete(key);
    for (const terminal of call.terminals) {
      const calls = this.#callsOf.get(terminal);
      calls?.delete(key);
      if (calls?.size === 0) {
        this.#callsOf.delete(terminal);
      }
    }
  }

  /** A terminal's output changed: its tool calls are sent again, at most every LIVE_INTERVAL_MS. */
  #changed(terminal: string): void {
    for (const key of this.#callsOf.get(terminal) ?? []) {
      const call = this.#calls.get(key);
      if (call === undefined || call.timer !== undefined || !call.live) {
        continue;
      }
      const wait = Math.max(0, call.lastSentAt + LIVE_INTERVAL_MS - this.#now());
      call.timer = setTimeout(() => {
        call.timer = undefined;
        this.#send(call);
      }, wait);
    }
  }

  /** A terminal ended: its tool calls are sent at once, with the final screen (and exit). */
  #ended(terminal: string): void {
    for (const key of this.#callsOf.get(terminal) ?? []) {
      const call = this.#calls.get(key);
      if (call !== undefined) {
        clearTimeout(call.timer);
        call.timer = undefined;
        this.#send(call);
      }
    }
  }

  #send(call: Call): void {
    call.lastSentAt = this.#now();
    if (this.options.dialect !== "text") {
      this.#sendMeta(call);
      return;
    }
    this.#update(call, { content: this.#content(call) });
  }

  #update(call: Call, fields: Record<string, unknown>): void {
    this.options.send({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: call.sessionId,
        update: { sessionUpdate: "tool_call_update", toolCallId: call.toolCallId, ...fields },
      },
    });
  }

  /** The agent's content with each terminal this proxy shows as a text item (MAX_SHOWN_TERMINALS). */
  #content(call: Call): unknown[] {
    let shown = 0;
    return call.content.map((item) => {
      const terminalId = field(item, "terminalId");
      const key =
        typeof terminalId === "string"
          ? call.terminals.find(
              (k) => k === hostedKey(terminalId) || k === reportedKey(call.sessionId, terminalId),
            )
          : undefined;
      if (
        field(item, "type") !== "terminal" ||
        key === undefined ||
        shown === MAX_SHOWN_TERMINALS
      ) {
        return item;
      }
      shown++;
      const { screen, exitStatus } = this.#screenOf(key, call.sessionId);
      const text = terminalText(screen, exitStatus, this.options.liveLines);
      return { type: "content", content: { type: "text", text } };
    });
  }

  #screenOf(
    key: string,
    sessionId: string,
  ): { screen: string; exitStatus: ExitStatus | undefined } {
    const [kind, ...rest] = key.split("\n");
    const terminalId = rest.at(-1) ?? "";
    if (kind === "r") {
      const terminal = this.#reported.get(sessionId)?.terminals.get(terminalId);
      return { screen: terminal?.text() ?? "", exitStatus: terminal?.exitStatus };
    }
    return this.#hosted.screenOf(terminalId);
  }

  /** The `_meta` dialect: the proxy's terminal announced where a tool call first shows it. */
  #withTerminalInfo(update: Record<string, unknown>, terminals: string[]): Rewrite {
    const hostedId = terminals.find((key) => key.startsWith("h\n"))?.slice(2);
    const cwd = hostedId === undefined ? undefined : this.#hosted.cwd(hostedId);
    if (hostedId === undefined || cwd === undefined) {
      return PASS;
    }
    const meta = isRecord(update["_meta"]) ? update["_meta"] : {};
    const terminal_info = { terminal_id: hostedId, cwd };
    return { kind: "replace", update: { ...update, _meta: { ...meta, terminal_info } } };
  }

  /** The `_meta` dialect: the output the editor has not had yet, then the exit once ended. */
  #sendMeta(call: Call): void {
    for (const key of call.terminals) {
      const terminalId = key.slice(2);
      if (!key.startsWith("h\n") || !this.#hosted.has(terminalId)) {
        continue;
      }
      const data = this.#hosted.takeOutput(terminalId);
      if (data !== "") {
        this.#update(call, {
          _meta: { [this.options.dialect]: { terminal_id: terminalId, data } },
        });
      }
      const exitStatus = this.#hosted.exitStatus(terminalId);
      if (exitStatus !== undefined && !call.exitsSent.has(key)) {
        call.exitsSent.add(key);
        this.#update(call, {
          _meta: {
            terminal_exit: {
              terminal_id: terminalId,
              exit_code: exitStatus.exitCode ?? null,
              signal: exitStatus.signal ?? null,
            },
          },
        });
      }
    }
  }
}

/** An update that says nothing but `_meta` terminal reports (which the proxy shows instead). */
function onlyTerminalReport(update: Record<string, unknown>): boolean {
  const meta = update["_meta"];
  return (
    Object.keys(update).every(
      (key) => key === "sessionUpdate" || key === "toolCallId" || key === "_meta",
    ) &&
    isRecord(meta) &&
    Object.keys(meta).every((key) => key !== "terminal_info" && TERMINAL_META_KEYS.includes(key))
  );
}
