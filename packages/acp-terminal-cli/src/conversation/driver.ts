import type { Stream } from "@agentclientprotocol/sdk";
import type { TerminalHost } from "acp-terminal";
import type { Ending } from "../agent/failure-messages.js";
import type { AuthMethodShown } from "../agent/auth-methods.js";
import type { LineTap } from "../agent/ndjson-stdio.js";
import type { PermissionAnswer, PermissionAsk } from "../ask/permission-ask.js";
import type { ProtocolName, Renderer, TerminalRecord } from "../view/renderer.js";
import type { ClientFiles } from "./client-files.js";
import type { McpToolsOffer } from "./mcp-tools-offer.js";

/** What the conversation lends its driver when it connects. */
export interface DriverContext {
  /** Where the driver's view events go. */
  readonly view: Renderer;
  /** The CLI's own terminals: given when the driver hosts terminals, or under `--mcp-tools`. */
  readonly host: TerminalHost | undefined;
  /** `--mcp-tools`: the CLI's terminals offered to the agent as MCP tools. */
  readonly mcpTools: McpToolsOffer | undefined;
  /** Answers a permission request by the user's policy (one question at a time, the view paused). */
  askPermission(request: PermissionAsk): Promise<PermissionAnswer>;
  /** The agent's file requests (v1 `fs/*`), confined and approved by the user's policy. */
  readonly files: ClientFiles;
  /** Whether a terminal login can run (stdin and stderr are a TTY): declared as `auth.terminal`. */
  readonly terminalLogin: boolean;
  /** Puts a tap in front of the parser of the agent's stdout (an agent process: not in memory). */
  tapLines?(tap: LineTap): void;
}

/** What the agent told of itself in `initialize`. */
export interface AgentIntro {
  /** The dialect spoken: `v2`, `v1-meta` (v1 declaring `_meta` terminal output) or `v1`. */
  dialect: "v2" | "v1-meta" | "v1";
  protocolVersion: unknown;
  /** `agentInfo` (v1) or `info` (v2) as sent: name, title, version. */
  agentInfo: unknown;
  /** `agentCapabilities` (v1) or `capabilities` (v2) as sent. */
  capabilities: unknown;
  authMethods: AuthMethodShown[];
  /** `session/load` is offered (v1 `loadSession`). */
  canLoad: boolean;
  /** `session/resume` is offered. */
  canResume: boolean;
  /** The MCP server kinds it takes besides stdio. */
  mcp: { http: boolean; sse: boolean };
}

/** The session the conversation holds, and how it got it. */
export interface SessionStarted {
  sessionId: string;
  how: "new" | "load" | "resume";
}

/** MCP servers the user gave (`--mcp-config`), in ACP's v1 shape; each driver sends its version's. */
export type UserMcpServer =
  | {
      type: "stdio";
      name: string;
      command: string;
      args: string[];
      env: Array<{ name: string; value: string }>;
    }
  | {
      type: "http" | "sse";
      name: string;
      url: string;
      headers: Array<{ name: string; value: string }>;
    };

/** How a turn ended, as the protocol said it. */
export interface TurnEnd {
  stopReason?: string | undefined;
  /** The agent ended the turn with an error: the line that says so. */
  error?: string | undefined;
}

/**
 * One protocol version (a dialect) of the conversation: the only place versions differ. It speaks
 * the wire (the SDK's client of its version), turns what the agent sends into view events, and
 * answers the agent's requests through the context. The conversation owns everything else:
 * phases, timeouts, stop signals, approval, the CLI's host, `--mcp-tools`, teardown.
 *
 * Calls come in this order: `connect`, `initialize`, `authenticate` when asked, `startSession`,
 * then `prompt` once per turn (each after the one before resolved); `cancelTurn` and `interrupt`
 * at any time during a turn; `detach` and `close` once, at the end.
 */
export interface ProtocolDriver {
  /** The version spoken, as view events name it. */
  readonly protocol: ProtocolName;
  /** The agent's commands run in the CLI's own host (client terminals): the conversation makes one. */
  readonly hostsTerminals: boolean;
  /** Registers the client's handlers and starts reading the agent's messages. */
  connect(stream: Stream, context: DriverContext): void;
  /**
   * Sends `initialize`. Resolves with an Ending when the answer ends the conversation (a version
   * not spoken); rejects with the agent's error, or `ConnectionClosed`.
   */
  initialize(): Promise<Ending | undefined>;
  /** What `initialize` answered (after it resolved without an Ending). */
  readonly intro: AgentIntro | undefined;
  /** Sends `authenticate` (v1) or `auth/login` (v2) for an agent-run method. */
  authenticate(methodId: string): Promise<void>;
  /**
   * Starts the session in the session's cwd, with the MCP servers to offer (the CLI's and the
   * user's): a new one, or `resume`'s, by `session/resume` where offered, else `session/load`.
   */
  startSession(
    resume: string | undefined,
    userServers: readonly UserMcpServer[],
  ): Promise<SessionStarted>;
  /** Sends one prompt and resolves when the turn it starts has ended. */
  prompt(text: string): Promise<TurnEnd>;
  /** Asks the agent to cancel the turn under way (nothing before a session exists). */
  cancelTurn(): void;
  /**
   * Ctrl-C during a turn: stops the turn's commands this version's way, and calls `cancelTurn`
   * (the conversation's: it also ends pending questions) when the turn itself is to be cancelled.
   */
  interrupt(cancelTurn: () => void): void;
  /** Every terminal shown, for the summary. */
  terminalRecords(): TerminalRecord[];
  /** Terminals shown that have not exited (background work left when a turn ends). */
  runningTerminals(): number;
  /** Resolves when the connection has closed (the agent's stdout ended, or `close`). */
  readonly closed: Promise<void>;
  /** The conversation is ending: stop showing what the agent sends. */
  detach(): void;
  /** Closes the connection. */
  close(): void;
}

/**
 * The connection closed while nothing pending on it failed (an ACP v2 prompt is answered as soon
 * as it is taken): what a driver rejects with then, so the conversation does not wait for
 * updates that cannot come.
 */
export class ConnectionClosed extends Error {
  constructor(readonly reason: unknown) {
    super("ACP connection closed");
    this.name = "ConnectionClosed";
  }
}
