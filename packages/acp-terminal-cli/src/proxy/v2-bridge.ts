import { randomUUID } from "node:crypto";
import type {
  RequestPermissionRequest,
  SessionUpdate,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { messageOf } from "acp-terminal/internal";
import type { TerminalLimits } from "../command/terminal-limits.js";
import { readChunkLine } from "../readers/chunk-line.js";
import { permissionAsk } from "../readers/v2-permission.js";
import { MAX_ID_CHARS } from "../readers/agent-terminals.js";
import { V2Session } from "../readers/v2-session.js";
import { PendingRequests } from "./pending-requests.js";
import type { Port } from "./ports.js";
import { ToolCallTerminals } from "./tool-call-terminals.js";
import { V1Emitter } from "./v1-emitter.js";
import { parseLine, readWireMessage, type RpcId } from "./wire-message.js";
import { errorAnswer, field, isRecord } from "./json-rpc.js";

/** The SDK's answer to an `initialize` asking a version the agent does not speak. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Bytes of the buffer a chunk's data is decoded into (a 64 KiB chunk; a larger one gets its own). */
const SCRATCH_BYTES = 96 * 1024;
const CHUNK_MARKER = Buffer.from('"terminal_output_chunk"');

/**
 * Whether an agent's answer to the editor's v1 `initialize` says it speaks only ACP v2: it
 * answered version 2, or refused with -32022 listing 2 among the versions it supports.
 */
export function answersOnlyV2(answer: unknown): boolean {
  const error = field(answer, "error");
  const supported = field(field(error, "data"), "supported");
  return (
    field(field(answer, "result"), "protocolVersion") === 2 ||
    (field(error, "code") === UNSUPPORTED_PROTOCOL_VERSION &&
      Array.isArray(supported) &&
      supported.includes(2))
  );
}

/** A v2 agent's `initialize` answer as a v1 editor reads it: its name, and no capability claimed. */
function v1InitializeResult(result: unknown): Record<string, unknown> {
  const info = field(result, "info");
  return {
    protocolVersion: 1,
    agentCapabilities: {},
    authMethods: [],
    ...(isRecord(info) ? { agentInfo: info } : {}),
  };
}

/** A v1 `session/new`'s MCP servers in v2's shape: a stdio server names its type. */
function v2McpServers(servers: unknown): unknown {
  return Array.isArray(servers)
    ? servers.map((server: unknown) =>
        isRecord(server) && server["type"] === undefined && "command" in server
          ? { type: "stdio", ...server }
          : server,
      )
    : servers;
}

/** A v2 session as the editor's v1 sees it: its updates read, and the v1 prompt that waits for its turn's end. */
interface BridgedSession {
  reader: V2Session;
  /** The editor's `session/prompt` waiting for the turn's end. */
  prompt: RpcId | undefined;
  /** A running state was read since that prompt. */
  worked: boolean;
}

/**
 * An ACP v2 agent (one that refuses v1) behind a v1 editor. The proxy speaks v2 to the agent and
 * v1 to the editor: its own v2 `initialize`, answered to the editor in v1's words; the agent's
 * session updates read by the v2 session reader (`V2Session`) and said again in v1 (`V1Emitter`),
 * with its agent-owned terminals (`terminal_update`, `terminal_output_chunk`, the chunks read
 * straight from the line) shown as text in their tool calls (`ToolCallTerminals`); a v2 prompt is
 * answered at once, so the editor's v1 prompt is answered at the turn's end (the first idle state
 * after a running one, or one with a stop reason); the agent's permission requests asked in v1's
 * shape. Everything else passes as it came.
 */
/** Sessions a proxy follows at most (the relay's and the bridge's); past it, the oldest is forgotten. */
export const MAX_SESSIONS = 10_000;

export class V2Bridge {
  readonly #initializeId = `acp-terminal-proxy/${randomUUID()}/initialize`;
  readonly #toAgent = new PendingRequests();
  readonly #sessions = new Map<string, BridgedSession>();
  readonly #terminals: ToolCallTerminals;
  readonly #scratch = new Uint8Array(SCRATCH_BYTES);
  /** The editor's `initialize`, waiting for the agent's v2 answer. */
  #editorInitialize: RpcId | undefined;

  constructor(
    private readonly editor: Port,
    private readonly agent: Port,
    private readonly options: TerminalLimits & {
      liveLines: number;
      notice(message: string): void;
    },
  ) {
    this.#terminals = new ToolCallTerminals({
      dialect: "text",
      agentOwnsTerminals: true,
      liveLines: options.liveLines,
      limits: options,
      send: (message) => editor.send(message),
    });
  }

  /**
   * The agent answered the editor's v1 `initialize` as a v2 agent: an answer of version 2 goes to
   * the editor in v1's words; a refusal makes the proxy initialize the agent in v2 itself.
   */
  start(editorId: RpcId, editorParams: unknown, answer: unknown): void {
    if (field(field(answer, "result"), "protocolVersion") === 2) {
      this.#answerInitialize(editorId, answer);
      return;
    }
    this.#editorInitialize = editorId;
    const clientInfo = field(editorParams, "clientInfo");
    this.agent.send({
      jsonrpc: "2.0",
      id: this.#initializeId,
      method: "initialize",
      params: {
        protocolVersion: 2,
        info: isRecord(clientInfo) ? clientInfo : { name: "acp-terminal proxy", version: "1" },
        capabilities: {},
      },
    });
  }

  /** Whether an answer read on a shared line (a conductor's) is the agent's. */
  awaitsAgent(id: RpcId): boolean {
    return id === this.#initializeId || this.#toAgent.has(id);
  }

  /** Sessions followed now (at most MAX_SESSIONS). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  fromEditor(line: Buffer): void {
    const message = readWireMessage(line);
    if (message.kind === "empty") {
      return;
    }
    if (message.kind === "invalid") {
      this.editor.send({ jsonrpc: "2.0", id: message.id, error: message.error });
      return;
    }
    if (message.kind !== "request") {
      this.agent.pass(line, message);
      return;
    }
    const value = message.value ?? parseLine(line) ?? {};
    const params = field(value, "params");
    if (
      !this.#toAgent.add({
        id: message.id,
        method: message.method,
        params: isRecord(params) ? params : undefined,
      })
    ) {
      this.editor.send(
        errorAnswer(
          message.id,
          `Too many requests waiting for the agent: ${message.method} was not sent`,
        ),
      );
      return;
    }
    if (message.method === "session/load" || message.method === "session/resume") {
      this.#open(field(params, "sessionId"));
    }
    if (message.method === "session/prompt") {
      const session = this.#sessions.get(String(field(params, "sessionId")));
      if (session !== undefined) {
        session.prompt = message.id;
        session.worked = false;
      }
    }
    if (
      message.method === "session/new" &&
      isRecord(params) &&
      params["mcpServers"] !== undefined
    ) {
      this.agent.send({
        ...value,
        params: { ...params, mcpServers: v2McpServers(params["mcpServers"]) },
      });
      return;
    }
    this.agent.pass(line, message);
  }

  fromAgent(line: Buffer): void {
    if (line.indexOf(CHUNK_MARKER) !== -1) {
      const chunk = readChunkLine(line, this.#scratch);
      const session = chunk === undefined ? undefined : this.#sessions.get(chunk.sessionId);
      if (chunk !== undefined && session !== undefined) {
        session.reader.chunk(chunk.terminalId, chunk.bytes);
        return;
      }
    }
    const message = readWireMessage(line);
    if (message.kind === "empty") {
      return;
    }
    if (message.kind === "invalid") {
      this.agent.send({ jsonrpc: "2.0", id: message.id, error: message.error });
      return;
    }
    if (message.kind === "response") {
      this.#agentAnswer(line, message.id, message.value ?? parseLine(line));
      return;
    }
    const value = message.value ?? parseLine(line);
    if (message.kind === "request" && message.method === "session/request_permission") {
      this.editor.send({ ...value, params: v1Permission(field(value, "params")) });
    } else if (message.kind === "notification" && message.method === "session/update") {
      this.#update(field(value, "params"));
    } else {
      this.editor.pass(line, message);
    }
  }

  /** The agent is gone: every request and prompt the editor waits on gets an error saying `why`. */
  agentGone(why: string, data: Record<string, unknown>): void {
    const fail = (id: RpcId, method: string) =>
      this.editor.send(errorAnswer(id, `${why} before answering ${method}`, data));
    for (const request of this.#toAgent.drain()) {
      fail(request.id, request.method);
    }
    for (const session of this.#sessions.values()) {
      if (session.prompt !== undefined) {
        fail(session.prompt, "session/prompt");
        session.prompt = undefined;
      }
    }
    if (this.#editorInitialize !== undefined) {
      fail(this.#editorInitialize, "initialize");
      this.#editorInitialize = undefined;
    }
  }

  close(): void {
    this.#terminals.dispose();
  }

  #answerInitialize(editorId: RpcId, answer: unknown): void {
    const error = field(answer, "error");
    this.editor.send(
      error === undefined
        ? { jsonrpc: "2.0", id: editorId, result: v1InitializeResult(field(answer, "result")) }
        : { jsonrpc: "2.0", id: editorId, error },
    );
  }

  #agentAnswer(line: Buffer, id: RpcId, answer: Record<string, unknown> | undefined): void {
    if (id === this.#initializeId) {
      if (this.#editorInitialize !== undefined) {
        this.#answerInitialize(this.#editorInitialize, answer);
        this.#editorInitialize = undefined;
      }
      return;
    }
    const request = this.#toAgent.take(id);
    if (request?.method === "session/new") {
      this.#open(field(field(answer, "result"), "sessionId"));
    }
    if (request?.method === "session/prompt") {
      // A v2 prompt is answered at once: the editor's answer waits for the turn's end, or is this error.
      const session = this.#sessions.get(String(field(request.params, "sessionId")));
      if (field(answer, "error") === undefined || session?.prompt !== id) {
        return;
      }
      session.prompt = undefined;
    }
    this.editor.pass(line, { kind: "response", id });
  }

  #open(sessionId: unknown): void {
    if (
      typeof sessionId !== "string" ||
      sessionId === "" ||
      sessionId.length > MAX_ID_CHARS ||
      this.#sessions.has(sessionId)
    ) {
      return;
    }
    if (this.#sessions.size >= MAX_SESSIONS) {
      // A session/load opens its session before the agent answers (its history comes first), so
      // invented ids would otherwise grow this map without end.
      const oldest = this.#sessions.keys().next();
      if (oldest.done !== true) {
        this.#sessions.delete(oldest.value);
      }
    }
    const emitter = new V1Emitter(this.#terminals.reportedListener(sessionId), (update) =>
      this.#say(sessionId, update),
    );
    this.#sessions.set(sessionId, {
      reader: new V2Session(emitter, this.options),
      prompt: undefined,
      worked: false,
    });
  }

  /** A v1 update for the editor, its terminals shown as text. */
  #say(sessionId: string, update: Record<string, unknown>): void {
    const rewrite = this.#terminals.rewrite(sessionId, update);
    if (rewrite.kind === "drop") {
      return;
    }
    const shown = rewrite.kind === "replace" ? rewrite.update : update;
    this.editor.send({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId, update: shown },
    });
  }

  /** A v2 session update: read (its meaning said in v1), then where the turn is. */
  #update(params: unknown): void {
    const sessionId = field(params, "sessionId");
    const update = field(params, "update");
    const session = typeof sessionId === "string" ? this.#sessions.get(sessionId) : undefined;
    if (session === undefined || !isRecord(update) || typeof update["sessionUpdate"] !== "string") {
      return;
    }
    try {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- a v2 update read from the wire; the reader reads each variant's fields as the schema gives them, and a malformed one is caught here
      session.reader.update(update as SessionUpdate);
    } catch (error) {
      this.options.notice(
        `a v2 session update could not be read (${messageOf(error)}); it was dropped`,
      );
    }
    if (update["sessionUpdate"] !== "state_update") {
      return;
    }
    const state = update["state"];
    if (state === "running" || state === "requires_action") {
      session.worked = true;
      return;
    }
    const stopReason = update["stopReason"];
    if (
      state !== "idle" ||
      session.prompt === undefined ||
      (!session.worked && stopReason === undefined)
    ) {
      return;
    }
    const id = session.prompt;
    session.prompt = undefined;
    this.editor.send(
      stopReason === "error"
        ? errorAnswer(
            id,
            `The agent stopped with an error: ${String(field(field(update, "error"), "message") ?? "")}`,
          )
        : {
            jsonrpc: "2.0",
            id,
            result: { stopReason: typeof stopReason === "string" ? stopReason : "end_turn" },
          },
    );
  }
}

/** A v2 permission request in v1's shape: the tool call it names, its title and what it is about as text. */
function v1Permission(params: unknown): Record<string, unknown> {
  if (!isRecord(params)) {
    return {};
  }
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the v2 request read from the wire: permissionAsk reads only its title, subject and options, each checked
  const ask = permissionAsk(params as RequestPermissionRequest);
  const details = (ask.details ?? []).map((line) => line.trim()).join("\n");
  return {
    sessionId: params["sessionId"],
    toolCall: {
      toolCallId: ask.toolCall.toolCallId,
      title: ask.toolCall.title,
      ...(details === ""
        ? {}
        : { content: [{ type: "content", content: { type: "text", text: details } }] }),
    },
    options: params["options"],
  };
}
