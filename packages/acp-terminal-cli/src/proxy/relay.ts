import type { TerminalHost } from "acp-terminal";
import type { ApprovalAsker } from "acp-terminal/approval";
import type { TerminalLimits } from "../command/terminal-limits.js";
import { followHost } from "../readers/terminal-ledger.js";
import { MetaLane } from "../readers/v1-meta-lane.js";
import { EditorAsker } from "./editor-asker.js";
import { agentInitializeParams, editorOffer, servesTerminals } from "./initialize.js";
import { PendingRequests, type PendingRequest } from "./pending-requests.js";
import type { Port } from "./ports.js";
import type { TerminalsMode } from "./proxy-options.js";
import { TerminalService } from "./terminal-service.js";
import { ToolCallTerminals } from "./tool-call-terminals.js";
import { answersOnlyV2, MAX_SESSIONS, V2Bridge } from "./v2-bridge.js";
import { parseLine, readWireMessage, type RpcId, type WireMessage } from "./wire-message.js";
import { errorAnswer, field, isRecord } from "./json-rpc.js";

/** A line that may hold a terminal in a tool call, or a `_meta` terminal report. */
const TERMINAL_MARKER = Buffer.from('"terminal');

/** Requests whose answer names a session the editor now has; those naming one it opens again. */
const CREATING = new Set(["session/new", "session/fork"]);
const REOPENING = new Set(["session/load", "session/resume"]);
const ENDING = new Set(["session/close", "session/delete"]);

export interface RelayOptions extends TerminalLimits {
  terminals: TerminalsMode;
  liveLines: number;
  /** Builds the host that serves the agent's terminals, asking through `ask`; called at most once. */
  host(ask: ApprovalAsker): TerminalHost;
  /** Says something about the proxy itself (on stderr). */
  notice(message: string): void;
}

/**
 * The proxy's message logic, between the editor's port and the agent's. Every message passes
 * through as it came, in order, except what the proxy must change: the editor's `initialize`
 * (plus the terminals the proxy serves), the agent's `terminal/*` requests when it serves them
 * (answered by `TerminalService`), the agent's tool calls that show terminals the editor cannot
 * (`ToolCallTerminals`), and its own questions to the editor (`EditorAsker`). It follows the
 * requests each side waits on (`PendingRequests`), for the answers it learns from (a new session)
 * and for the errors owed when a side goes away. A line that is not JSON-RPC is answered with an
 * error on its own side and goes no further.
 */
export class Relay {
  readonly #toAgent = new PendingRequests();
  readonly #toEditor = new PendingRequests();
  readonly #asker: EditorAsker;
  /** The editor's sessions and their cwd. */
  readonly #sessions = new Map<string, string | undefined>();
  #service: TerminalService | undefined;
  #terminals: ToolCallTerminals | undefined;
  #lane: MetaLane | undefined;
  #initialized = false;
  /** The editor offered ACP v1 in its `initialize`. */
  #editorV1 = false;
  /** Set when the agent speaks only v2: from then on every message goes through it. */
  #bridge: V2Bridge | undefined;

  constructor(
    private readonly editor: Port,
    private readonly agent: Port,
    private readonly options: RelayOptions,
  ) {
    this.#asker = new EditorAsker((message) => editor.send(message));
  }

  /** The host serving the agent's terminals, once the editor's `initialize` made one. */
  get host(): TerminalHost | undefined {
    return this.#service?.host;
  }

  /** Whether an answer read on a shared line (a conductor's) is the agent's. */
  awaitsAgent(id: RpcId): boolean {
    return this.#toAgent.has(id) || this.#bridge?.awaitsAgent(id) === true;
  }

  /** A line from the editor. */
  fromEditor(line: Buffer): void {
    if (this.#bridge !== undefined) {
      this.#bridge.fromEditor(line);
      return;
    }
    const message = readWireMessage(line);
    switch (message.kind) {
      case "empty":
        return;
      case "invalid":
        this.editor.send({ jsonrpc: "2.0", id: message.id, error: message.error });
        return;
      case "notification":
        this.agent.pass(line, message);
        return;
      case "response":
        if (this.#asker.asked(message.id)) {
          this.#asker.answer(message.id, message.value ?? parseLine(line) ?? {});
          return;
        }
        this.#toEditor.take(message.id);
        this.agent.pass(line, message);
        return;
      case "request":
        this.#editorRequest(line, message);
        return;
    }
  }

  /** A line from the agent. */
  fromAgent(line: Buffer): void {
    if (this.#bridge !== undefined) {
      this.#bridge.fromAgent(line);
      return;
    }
    if (this.#lane?.lineTap.take(line) === true) {
      return; // a `_meta` output report, shown by the proxy in its tool call
    }
    const message = readWireMessage(line);
    switch (message.kind) {
      case "empty":
        return;
      case "invalid":
        this.agent.send({ jsonrpc: "2.0", id: message.id, error: message.error });
        return;
      case "response": {
        const request = this.#toAgent.take(message.id);
        const answer = request === undefined ? undefined : (message.value ?? parseLine(line));
        if (request !== undefined && this.#bridged(request, answer)) {
          return;
        }
        if (request !== undefined) {
          this.#learn(request, answer);
        }
        this.editor.pass(line, message);
        return;
      }
      case "notification":
        this.#agentNotification(line, message);
        return;
      case "request":
        this.#agentRequest(line, message);
        return;
    }
  }

  /**
   * The agent is gone: each request the editor still waits on gets an error saying so (`why`),
   * and each question the proxy asked is let go.
   */
  agentGone(why: string, data: Record<string, unknown>): void {
    for (const request of this.#toAgent.drain()) {
      this.editor.send(errorAnswer(request.id, `${why} before answering ${request.method}`, data));
    }
    this.#bridge?.agentGone(why, data);
    this.#asker.abandon(`not approved: ${why}`);
  }

  /** The editor is gone: questions are denied; the agent's requests to it get errors. */
  editorGone(): void {
    this.#asker.abandon("not approved: the editor closed the connection");
    for (const request of this.#toEditor.drain()) {
      this.agent.send(
        errorAnswer(
          request.id,
          `The editor closed the connection before answering ${request.method}`,
        ),
      );
    }
  }

  /** Releases every terminal and stops every timer. */
  async close(): Promise<void> {
    this.#terminals?.dispose();
    this.#bridge?.close();
    await this.#service?.close();
  }

  #editorRequest(line: Buffer, message: Extract<WireMessage, { kind: "request" }>): void {
    const { id, method } = message;
    const value = message.value ?? (method === "initialize" ? parseLine(line) : undefined);
    const params = field(value, "params");
    const learns = CREATING.has(method) || ENDING.has(method) || method === "initialize";
    const pending: PendingRequest = {
      id,
      method,
      ...(learns && isRecord(params) ? { params } : {}),
    };
    if (!this.#toAgent.add(pending)) {
      this.editor.send(
        errorAnswer(
          id,
          `Too many requests waiting for the agent (${this.#toAgent.size}): ${method} was not sent`,
        ),
      );
      return;
    }
    if (REOPENING.has(method)) {
      this.#sessionOpened(field(params, "sessionId"), field(params, "cwd"));
    }
    if (method === "initialize" && !this.#initialized && value !== undefined) {
      this.#initialized = true;
      const rewritten = this.#initialize(value);
      if (rewritten !== undefined) {
        this.agent.send(rewritten);
        return;
      }
    }
    this.agent.pass(line, message);
  }

  /** Decides who serves terminals and how the editor sees them; the message the agent gets, if changed. */
  #initialize(value: Record<string, unknown>): Record<string, unknown> | undefined {
    const params = field(value, "params");
    const offer = editorOffer(params);
    this.#editorV1 = offer.v1;
    if (!offer.v1 || !isRecord(params)) {
      return undefined;
    }
    const serve = servesTerminals(this.options.terminals, offer);
    this.#terminals = new ToolCallTerminals({
      dialect: offer.dialect,
      liveLines: this.options.liveLines,
      limits: this.options,
      send: (message) => this.editor.send(message),
    });
    if (offer.dialect === "text") {
      const terminals = this.#terminals;
      this.#lane = new MetaLane(
        (sessionId) => this.#sessions.has(sessionId),
        (output) => terminals.metaOutput(output),
      );
    }
    if (serve) {
      const host = this.options.host(this.#asker.ask);
      followHost(host, this.#terminals.hostEvents);
      this.#service = new TerminalService(host, (answer) => this.agent.send(answer), {
        sessionCwd: (sessionId) => this.#sessions.get(sessionId),
        onError: (error, where) => this.options.notice(`${where}: ${String(error)}`),
      });
    }
    const rewritten = agentInitializeParams(params, offer, serve, this.#service?.host);
    return rewritten === undefined ? undefined : { ...value, params: rewritten };
  }

  #agentRequest(line: Buffer, message: Extract<WireMessage, { kind: "request" }>): void {
    const service = this.#service;
    if (service?.serves(message.method) === true) {
      const value = message.value ?? parseLine(line);
      if (value !== undefined) {
        service.receive({ ...value, id: message.id, method: message.method });
        return;
      }
    }
    if (!this.#toEditor.add({ id: message.id, method: message.method })) {
      this.agent.send(
        errorAnswer(
          message.id,
          `Too many requests waiting for the editor (${this.#toEditor.size}): ${message.method} was not sent`,
        ),
      );
      return;
    }
    const asked =
      message.method === "session/request_permission"
        ? this.#permissionShown(line, message)
        : undefined;
    if (asked === undefined) {
      this.editor.pass(line, message);
    } else {
      this.editor.send(asked);
    }
  }

  /**
   * The tool call a message of the agent's may show terminals in (`params[key]`: a session
   * update's `update`, a permission request's `toolCall`), when its session is the editor's and
   * its line names a terminal; else undefined (the message passes as it came).
   */
  #toolCallIn(
    line: Buffer,
    message: { value?: Record<string, unknown> },
    key: "update" | "toolCall",
  ):
    | {
        value: Record<string, unknown>;
        params: Record<string, unknown>;
        sessionId: string;
        item: Record<string, unknown>;
      }
    | undefined {
    if (this.#terminals === undefined || line.indexOf(TERMINAL_MARKER) === -1) {
      return undefined;
    }
    const value = message.value ?? parseLine(line);
    const params = field(value, "params");
    const sessionId = field(params, "sessionId");
    const item = field(params, key);
    return value !== undefined &&
      typeof sessionId === "string" &&
      this.#sessions.has(sessionId) &&
      isRecord(params) &&
      isRecord(item)
      ? { value, params, sessionId, item }
      : undefined;
  }

  /**
   * The agent's permission request with the terminals of its tool call made into content the
   * editor shows (as in a `tool_call_update`), or undefined to pass it as it came.
   */
  #permissionShown(
    line: Buffer,
    message: Extract<WireMessage, { kind: "request" }>,
  ): Record<string, unknown> | undefined {
    const found = this.#toolCallIn(line, message, "toolCall");
    const rewrite =
      found === undefined
        ? undefined
        : this.#terminals?.rewrite(found.sessionId, {
            ...found.item,
            sessionUpdate: "tool_call_update",
          });
    if (found === undefined || rewrite?.kind !== "replace") {
      return undefined;
    }
    const { sessionUpdate: _sessionUpdate, ...shown } = rewrite.update;
    return { ...found.value, params: { ...found.params, toolCall: shown } };
  }

  #agentNotification(line: Buffer, message: Extract<WireMessage, { kind: "notification" }>): void {
    if (message.method === "$/cancel_request" && this.#service !== undefined) {
      const value = message.value ?? parseLine(line);
      if (this.#service.cancels(field(value, "params")) && value !== undefined) {
        this.#service.receive({ ...value, method: message.method });
        return;
      }
    }
    const found =
      message.method === "session/update" ? this.#toolCallIn(line, message, "update") : undefined;
    const rewrite = found && this.#terminals?.rewrite(found.sessionId, found.item);
    if (found === undefined || rewrite === undefined || rewrite.kind === "pass") {
      this.editor.pass(line, message);
    } else if (rewrite.kind === "replace") {
      this.editor.send({ ...found.value, params: { ...found.params, update: rewrite.update } });
    }
  }

  /**
   * Whether the agent answered the editor's v1 `initialize` as one that speaks only v2: from then
   * on the bridge speaks v2 to it and v1 to the editor (and answers this `initialize`).
   */
  #bridged(request: PendingRequest, answer: unknown): boolean {
    if (request.method !== "initialize" || !this.#editorV1 || !answersOnlyV2(answer)) {
      return false;
    }
    this.#terminals?.dispose();
    this.#terminals = undefined;
    this.#lane = undefined;
    this.#bridge = new V2Bridge(this.editor, this.agent, this.options);
    this.#bridge.start(request.id, request.params, answer);
    return true;
  }

  /** What the proxy learns from an answer of the agent's to a request of the editor's. */
  #learn(request: PendingRequest, answer: Record<string, unknown> | undefined): void {
    const result = field(answer, "result");
    if (result === undefined) {
      return;
    }
    if (request.method === "initialize") {
      this.#terminals?.agentIs(field(field(result, "agentInfo"), "name"));
    } else if (CREATING.has(request.method)) {
      this.#sessionOpened(field(result, "sessionId"), field(request.params, "cwd"));
    } else if (ENDING.has(request.method)) {
      const sessionId = field(request.params, "sessionId");
      if (typeof sessionId === "string" && this.#sessions.delete(sessionId)) {
        this.#service?.releaseSession(sessionId).catch((error: unknown) => {
          this.options.notice(`releasing the terminals of session ${sessionId}: ${String(error)}`);
        });
      }
    }
  }

  #sessionOpened(sessionId: unknown, cwd: unknown): void {
    if (typeof sessionId !== "string" || sessionId === "") {
      return;
    }
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, typeof cwd === "string" ? cwd : undefined);
    if (this.#sessions.size > MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next();
      if (oldest.done !== true) {
        this.#sessions.delete(oldest.value);
      }
    }
    this.#service?.addSession(sessionId);
  }
}
