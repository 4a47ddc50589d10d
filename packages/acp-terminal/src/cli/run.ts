import { setImmediate as nextTurn, setTimeout as delay } from "node:timers/promises";
import {
  client,
  PROTOCOL_VERSION,
  type ClientConnection,
  type InitializeRequest,
  type Stream,
} from "@agentclientprotocol/sdk";
import { describeContainment } from "../contain/describe.js";
import { TerminalHost } from "../host/terminal-host.js";
import { bindTerminalHost } from "../rpc/bind.js";
import { terminalClientCapabilities } from "../rpc/capabilities.js";
import { boundedRequestError, cutText } from "../rpc/bounded-error.js";
import { AgentProcess, type AgentExit } from "./agent-process.js";
import { cliApprovalPolicy } from "./approval.js";
import { containmentOption, type RunOptions } from "./args.js";
import { StopSignals } from "./stop-signals.js";
import { ExitCode, exitCodeForStopReason } from "./exit-codes.js";
import {
  agentExited,
  initializeFailure,
  initTimedOut,
  notAcp,
  protocolFailure,
  unsupportedProtocol,
  type Ending,
} from "./failure-messages.js";
import { McpToolsOffer } from "./mcp-tools-offer.js";
import { decidePermission, type PermissionMode } from "./permission.js";
import { parsePermissionParams } from "./permission-params.js";
import { QuestionQueue } from "./choose.js";
import type { Renderer } from "./renderer.js";
import { followHost } from "./terminal-ledger.js";

/** After the agent's process exits, how long its last messages get to arrive. */
export const EXIT_DRAIN_MS = 500;

export interface CliIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Where the agent process starts. */
  cwd: string;
  version: string;
}

/** Where the conversation is, as each kind of ending words it. */
export const PHASES = {
  initialize: {
    request: "initialize",
    timedOut: "waiting for initialize",
    agentExited: "before answering initialize",
  },
  session: {
    request: "session/new",
    timedOut: "waiting for session/new",
    agentExited: "before starting a session",
  },
  turn: { request: "session/prompt", timedOut: "during the turn", agentExited: "during the turn" },
} as const;
export type Phase = keyof typeof PHASES;

/** An agent already started, and the stream to speak v1 on (`--protocol auto` chose v1). */
export interface Launched {
  agent: AgentProcess;
  stream: Stream;
  /** Calls `handler` if the agent's first stdout line was not JSON (at once if it was already seen). */
  onNotJson(handler: (snippet: string) => void): void;
  /** When the agent was started (the run's elapsed time counts from it). */
  startedAt: number;
  /** The v2 offer already waited `--init-timeout` for an answer in vain. */
  offerTimedOut?: boolean;
}

export class Run {
  private readonly started: number;
  private readonly cancelled = new AbortController();
  private readonly done: Promise<Ending>;
  private resolveDone!: (ending: Ending) => void;
  private ended = false;
  private phase: Phase = "initialize";
  private sessionId: string | undefined;
  private stops: StopSignals | undefined;
  private get interrupts(): number {
    return this.stops?.interrupts ?? 0;
  }
  private mcpTools: McpToolsOffer | undefined;

  constructor(
    private readonly options: RunOptions,
    private readonly io: CliIo,
    private readonly renderer: Renderer,
    private readonly launched?: Launched,
  ) {
    this.started = launched?.startedAt ?? performance.now();
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  async execute(): Promise<number> {
    const mode = this.permissionMode();
    const questions = new QuestionQueue();
    const ttyIo = { input: this.io.stdin, output: this.io.stderr, signal: this.cancelled.signal };
    const authorize = cliApprovalPolicy(mode, this.options.allow, ttyIo, questions, this.renderer);
    const containment = containmentOption(this.options);
    const host = new TerminalHost({
      pty: this.options.pty,
      cwd: this.options.cwd,
      authorize,
      containment,
      maxTerminalsPerSession: this.options.maxTerminals,
      maxTerminals: this.options.maxTotalTerminals,
    });
    if (this.options.verbose) {
      this.renderer.notice(`acp-terminal: ${describeContainment(host.containment)}`);
    }
    const terminals = followHost(host, this.renderer);
    if (this.options.mcpTools) {
      this.mcpTools = new McpToolsOffer({
        host,
        cwd: this.options.cwd,
        yes: mode === "yes",
        allow: this.options.allow,
        stdinWritable: mode !== "deny",
        version: this.io.version,
      });
    }
    const agent =
      this.launched?.agent ??
      new AgentProcess({
        commandLine: this.options.agent,
        cwd: this.io.cwd,
        agentLogPath: this.options.agentLog,
        stderr: this.io.stderr,
        onNotJson: (snippet) => {
          if (this.phase === "initialize") {
            this.end(notAcp(this.options.agent, snippet));
          }
        },
      });
    const app = client({ name: "acp-terminal" })
      .onNotification("session/update", ({ params }) => this.renderer.sessionUpdate(params.update))
      .onRequest("session/request_permission", parsePermissionParams, ({ params }) =>
        questions.one(async () => {
          this.renderer.pause();
          try {
            return await decidePermission(params, mode, {
              ...ttyIo,
              notice: (message) => this.renderer.notice(message),
            });
          } finally {
            this.renderer.resume();
          }
        }),
      );
    this.mcpTools?.listen(app);
    // The SDK answers an unknown method with its name twice, however long: a 1 MB name would be 2 MB.
    app.onRequest("*", ({ method }) => {
      throw boundedRequestError(-32601, `Method not found: ${cutText(method, 200)}`);
    });
    bindTerminalHost(app, host, {
      sessionCwd: () => this.options.cwd,
      onError: (error, context) =>
        this.renderer.notice(`acp-terminal: ${context}: ${String(error)}`),
    });
    this.launched?.onNotJson((snippet) => {
      if (this.phase === "initialize") {
        this.end(notAcp(this.options.agent, snippet));
      }
    });
    const connection = app.connect(this.launched?.stream ?? agent.stream);
    void agent.exited.then((exit) => this.agentGone(exit, connection, agent));
    const stopSignals = this.handleSignals(connection, host);
    const timeout =
      this.options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            this.cancelTurn(connection);
            this.end({
              exitCode: ExitCode.timeout,
              error: `Timed out after ${this.options.timeoutMs! / 1000} s (--timeout), ${PHASES[this.phase].timedOut}`,
            });
          }, this.options.timeoutMs);
    void this.converse(connection, agent, host);

    const ending = await this.done;
    clearTimeout(timeout);
    this.cancelled.abort();
    // Each step runs even if the one before failed: the agent must die whatever happens.
    await this.mcpTools
      ?.dispose()
      .catch((error: unknown) =>
        this.renderer.notice(`Could not stop the MCP tools' commands: ${String(error)}`),
      );
    await host
      .dispose()
      .catch((error: unknown) =>
        this.renderer.notice(`Could not stop every terminal: ${String(error)}`),
      );
    connection.close();
    // A second Ctrl-C means now: no grace for the agent.
    await agent
      .kill(this.interrupts > 1 ? 0 : undefined)
      .catch((error: unknown) =>
        this.renderer.notice(`Could not stop the agent: ${String(error)}`),
      );
    stopSignals();
    this.renderer.finish({
      ...ending,
      elapsedMs: performance.now() - this.started,
      terminals: terminals(),
    });
    return ending.exitCode;
  }

  private end(ending: Ending): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    this.resolveDone(ending);
  }

  private permissionMode(): PermissionMode {
    if (this.options.yes) {
      return "yes";
    }
    return this.io.stdin.isTTY && this.io.stderr.isTTY ? "ask" : "deny";
  }

  private async converse(
    connection: ClientConnection,
    agent: AgentProcess,
    host: TerminalHost,
  ): Promise<void> {
    const ac = new AbortController();
    if (this.launched?.offerTimedOut === true) {
      return this.end(initTimedOut(this.options.agent, this.options.initTimeoutMs));
    }
    try {
      const initTimeout = delay(this.options.initTimeoutMs, "timeout" as const, {
        signal: ac.signal,
      });
      const params: InitializeRequest = {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: this.mcpTools
          ? this.mcpTools.clientCapabilities()
          : terminalClientCapabilities(host),
        clientInfo: { name: "acp-terminal", version: this.io.version },
      };
      const initRequest = connection.agent.request("initialize", params);
      const init = await Promise.race([initRequest, initTimeout]);
      ac.abort();
      if (init === "timeout") {
        return this.end(initTimedOut(this.options.agent, this.options.initTimeoutMs));
      }
      if (init.protocolVersion !== PROTOCOL_VERSION) {
        return this.end(
          unsupportedProtocol(this.options.agent, init.protocolVersion, PROTOCOL_VERSION),
        );
      }
      this.phase = "session";
      const mcpServers = this.mcpTools ? await this.mcpTools.mcpServers(connection, init) : [];
      const session = await connection.agent.request("session/new", {
        cwd: this.options.cwd,
        mcpServers,
      });
      this.sessionId = session.sessionId;
      this.phase = "turn";
      const response = await connection.agent.request("session/prompt", {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: this.options.prompt }],
      });
      const exitCode =
        this.interrupts > 0 ? ExitCode.cancelled : exitCodeForStopReason(response.stopReason);
      this.end({ exitCode, stopReason: response.stopReason });
    } catch (error) {
      ac.abort();
      const what = PHASES[this.phase].request;
      // A request that failed because the agent died is reported by agentGone, with its exit code.
      const exited = await Promise.race([agent.exited, delay(EXIT_DRAIN_MS * 2, undefined)]);
      if (exited === undefined) {
        this.end(
          what === "initialize"
            ? initializeFailure(this.options.agent, error)
            : protocolFailure(what, error),
        );
      }
    }
  }

  private async agentGone(
    exit: AgentExit,
    connection: ClientConnection,
    agent: AgentProcess,
  ): Promise<void> {
    if (this.ended) {
      return;
    }
    // Its last messages (say, the prompt response) may still be in the pipe: let them be read.
    await Promise.race([connection.closed, delay(EXIT_DRAIN_MS)]);
    await nextTurn();
    this.end(
      agentExited(
        exit,
        PHASES[this.phase].agentExited,
        this.options.agent,
        this.options.agentLog,
        agent.lastStderrLine,
      ),
    );
  }

  private cancelTurn(connection: ClientConnection): void {
    this.cancelled.abort();
    if (this.sessionId === undefined) {
      return;
    }
    connection.agent.notify("session/cancel", { sessionId: this.sessionId }).catch(() => {
      // The agent is gone or its stdin is closed: the ending is decided elsewhere.
    });
  }

  /** Ctrl-C: cancel the turn and stop its terminals, then wait briefly; again: quit now. */
  private handleSignals(connection: ClientConnection, host: TerminalHost): () => void {
    this.stops = new StopSignals({
      stdout: this.io.stdout,
      cancelGraceMs: this.options.cancelGraceMs,
      inTurn: () => this.phase === "turn",
      cancelTurn: () => {
        this.cancelTurn(connection);
        for (const info of host.list()) {
          if (info.state !== "released") {
            host.release(info.owner, info.terminalId).catch((error: unknown) => {
              this.renderer.notice(
                `Could not release terminal ${info.terminalId}: ${String(error)}`,
              );
            });
          }
        }
      },
      end: (ending) => this.end(ending),
      notice: (message) => this.renderer.notice(message),
    });
    return this.stops.listen();
  }
}
