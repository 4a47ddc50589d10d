import { setTimeout as delay } from "node:timers/promises";
// The unstable v2 surface: the stable one plus MCP-over-ACP (`{type: "acp"}` servers, mcp/message).
import {
  client,
  methods,
  PROTOCOL_VERSION as V2,
  type ActiveSession,
  type ClientConnection,
  type McpServer,
  type RequestPermissionRequest,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { messageOf } from "../core/thrown.js";
import { TerminalHost } from "../host/terminal-host.js";
import { cliApprovalPolicy } from "./approval.js";
import { terminalClientCapabilities } from "../rpc/capabilities.js";
import { boundedRequestError, cutText } from "../rpc/bounded-error.js";
import { AgentProcess, type AgentExit } from "./agent-process.js";
import { containmentOption, type RunOptions } from "./args.js";
import { containmentFor } from "../contain/describe.js";
import { StopSignals } from "./stop-signals.js";
import { ExitCode, exitCodeForStopReason } from "./exit-codes.js";
import {
  agentExited,
  initializeFailure,
  initTimedOut,
  notAcp,
  protocolFailure,
  stderrHint,
  type Ending,
} from "./failure-messages.js";
import { QuestionQueue } from "./choose.js";
import { McpToolsOffer, stdioMcpServer } from "./mcp-tools-offer.js";
import { offerV2 } from "./negotiate.js";
import { decidePermission, type PermissionMode } from "./permission.js";
import type { Renderer } from "./renderer.js";
import { EXIT_DRAIN_MS, PHASES, Run, type CliIo, type Launched, type Phase } from "./run.js";
import { V2Session } from "./v2-session.js";

/** After Ctrl-C, how long the `terminal/cancel` answers may take before the turn is cancelled anyway. */
const TERMINAL_CANCEL_WAIT_MS = 1_000;
/** Characters of an agent's error message quoted in a notice. */
const MAX_NOTICE_CHARS = 500;

/**
 * `--protocol v2` and `--protocol auto`. Both first offer v2 (`offerV2`) and read the agent's
 * answer. v2 then speaks the ACP v2 draft (SDK `experimental/v2`), or ends saying which version the
 * agent answered with; auto runs the v1 client (`Run`) when the agent answers with another version
 * or refuses the offer.
 */
export async function runV2(options: RunOptions, io: CliIo, renderer: Renderer): Promise<number> {
  const started = performance.now();
  let notJson: string | undefined;
  let onNotJson: ((snippet: string) => void) | undefined;
  const agent = new AgentProcess({
    commandLine: options.agent,
    cwd: io.cwd,
    agentLogPath: options.agentLog,
    stderr: io.stderr,
    onNotJson: (snippet) => {
      notJson = snippet;
      onNotJson?.(snippet);
    },
  });
  const launched: Launched = {
    startedAt: started,
    agent,
    stream: agent.stream,
    onNotJson(handler: (snippet: string) => void) {
      onNotJson = handler;
      if (notJson !== undefined) {
        handler(notJson);
      }
    },
  };
  const auto = options.protocol === "auto";
  // Until a client runs (with its own handlers), a signal stops the offer, and the run, here.
  const interrupted = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled = signal;
    interrupted.abort();
  };
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  for (const signal of signals) {
    process.on(signal, onSignal);
  }
  const offer = await offerV2(
    agent.stream,
    {
      protocolVersion: V2,
      info: { name: "acp-terminal", version: io.version },
      capabilities: {},
      // For a v1 agent, which reads these and drops the v2 fields as unknown.
      ...(auto
        ? {
            clientInfo: { name: "acp-terminal", version: io.version },
            clientCapabilities: options.mcpTools
              ? { terminal: false }
              : terminalClientCapabilities({
                  containment: containmentFor(containmentOption(options)),
                }),
          }
        : {}),
    },
    options.initTimeoutMs,
    interrupted.signal,
  ).finally(() => {
    for (const signal of signals) {
      process.off(signal, onSignal);
    }
  });
  if (signalled !== undefined) {
    await agent.kill(0).catch(() => undefined);
    renderer.finish({
      exitCode: ExitCode.cancelled,
      error: signalled === "SIGINT" ? "Interrupted" : `Stopped by ${signalled}`,
      elapsedMs: performance.now() - started,
      terminals: [],
    });
    return ExitCode.cancelled;
  }
  launched.stream = offer.stream;
  launched.offerTimedOut = offer.kind === "timeout";
  const v2 = offer.kind === "answered" && offer.version === V2;
  if (auto && !v2) {
    return new Run(options, io, renderer, launched).execute();
  }
  const otherVersion = offer.kind === "answered" && !v2 ? offer.version : undefined;
  return new RunV2(options, io, renderer, launched, otherVersion).execute();
}

class RunV2 {
  private readonly started: number;
  private readonly cancelled = new AbortController();
  /** Stops reading the session's updates, at the end of the run (not on Ctrl-C: the ending is wanted). */
  private readonly closing = new AbortController();
  private readonly done: Promise<Ending>;
  private resolveDone!: (ending: Ending) => void;
  private ended = false;
  private phase: Phase = "initialize";
  private session: ActiveSession | undefined;
  private stops: StopSignals | undefined;
  private get interrupts(): number {
    return this.stops?.interrupts ?? 0;
  }
  private readonly view: V2Session;
  /** `--mcp-tools`: the CLI's own host, serving the tools over the connection when the agent takes them. */
  private mcpTools: { host: TerminalHost; offer: McpToolsOffer } | undefined;

  constructor(
    private readonly options: RunOptions,
    private readonly io: CliIo,
    private readonly renderer: Renderer,
    private readonly launched: Launched,
    /** The version the agent answered the v2 offer with, when not 2. */
    private readonly otherVersion?: unknown,
  ) {
    this.started = launched.startedAt;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.view = new V2Session(renderer, options);
  }

  async execute(): Promise<number> {
    const mode = this.permissionMode();
    const questions = new QuestionQueue();
    const ttyIo = { input: this.io.stdin, output: this.io.stderr, signal: this.cancelled.signal };
    const { agent } = this.launched;
    this.launched.onNotJson((snippet) => {
      if (this.phase === "initialize") {
        this.end(notAcp(this.options.agent, snippet));
      }
    });
    if (this.options.mcpTools) {
      const host = new TerminalHost({
        pty: this.options.pty,
        cwd: this.options.cwd,
        authorize: cliApprovalPolicy(mode, this.options.allow, ttyIo, questions, this.renderer),
        containment: containmentOption(this.options),
        maxTerminalsPerSession: this.options.maxTerminals,
        maxTerminals: this.options.maxTotalTerminals,
      });
      const offer = new McpToolsOffer({
        host,
        cwd: this.options.cwd,
        yes: mode === "yes",
        allow: this.options.allow,
        stdinWritable: mode !== "deny",
        version: this.io.version,
      });
      this.mcpTools = { host, offer };
    }
    const app = client({ name: "acp-terminal" })
      .onRequest("session/request_permission", ({ params }) =>
        questions.one(async () => {
          this.renderer.pause();
          try {
            return await decidePermission(asV1Request(params), mode, {
              ...ttyIo,
              notice: (message) => this.renderer.notice(message),
            });
          } finally {
            this.renderer.resume();
          }
        }),
      )
      .onRequest(methods.client.mcp.message, (context) => {
        if (this.mcpTools === undefined) {
          throw boundedRequestError(-32601, "Method not found: mcp/message (no --mcp-tools)");
        }
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the v2 app's request context carries what McpOverAcpProvider.handleRequest reads (params, the agent); the SDK types it per version
        return this.mcpTools.offer.handleMessage(context as never);
      })
      .onRequest("*", ({ method }) => {
        throw boundedRequestError(-32601, `Method not found: ${cutText(method, 200)}`);
      });
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the same ndjson message stream; the SDK declares Stream once per version
    const connection = app.connect(this.launched.stream as never);
    void agent.exited.then((exit) => this.agentGone(exit, connection));
    void connection.closed.then(() => this.connectionGone(connection));
    const stopSignals = this.handleSignals(connection);
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
    void this.converse(connection, mode);

    const ending = await this.done;
    clearTimeout(timeout);
    this.cancelled.abort();
    this.closing.abort();
    this.session?.dispose();
    await this.mcpTools?.offer
      .dispose()
      .catch((error: unknown) =>
        this.renderer.notice(`Could not stop the MCP tools' commands: ${String(error)}`),
      );
    await this.mcpTools?.host
      .dispose()
      .catch((error: unknown) =>
        this.renderer.notice(`Could not stop every terminal: ${String(error)}`),
      );
    connection.close();
    await agent
      .kill(this.interrupts > 1 ? 0 : undefined)
      .catch((error: unknown) =>
        this.renderer.notice(`Could not stop the agent: ${String(error)}`),
      );
    stopSignals();
    this.renderer.finish({
      ...ending,
      elapsedMs: performance.now() - this.started,
      terminals: this.view.terminalRecords(),
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

  private async converse(connection: ClientConnection, mode: PermissionMode): Promise<void> {
    const ac = new AbortController();
    if (this.launched.offerTimedOut === true) {
      return this.end(initTimedOut(this.options.agent, this.options.initTimeoutMs));
    }
    if (this.otherVersion !== undefined) {
      const hint =
        this.otherVersion === 1 ? "; run with --protocol v1 (the default) or --protocol auto" : "";
      return this.end({
        exitCode: ExitCode.agentFailed,
        error: `Agent answered the ACP v2 offer with protocol version ${JSON.stringify(this.otherVersion)}${hint}`,
      });
    }
    try {
      const initTimeout = delay(this.options.initTimeoutMs, "timeout" as const, {
        signal: ac.signal,
      });
      const initRequest = connection.agent.request("initialize", {
        protocolVersion: V2,
        info: { name: "acp-terminal", version: this.io.version },
        capabilities: {},
      });
      const init = await Promise.race([initRequest, initTimeout]);
      ac.abort();
      if (init === "timeout") {
        return this.end(initTimedOut(this.options.agent, this.options.initTimeoutMs));
      }
      this.phase = "session";
      const mcpServers: McpServer[] = [];
      const mcp = init.capabilities?.session?.mcp;
      if (this.mcpTools !== undefined) {
        if (mcp?.acp != null) {
          // MCP-over-ACP (the unstable v2 surface): the tools run in the CLI's host, under its
          // approval policy; the agent publishes each run as an agent-owned terminal.
          // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- SDK type gap: `{type: "acp"}` is in the unstable schema only
          mcpServers.push((await this.mcpTools.offer.overAcp(connection.agent)) as McpServer);
        } else if (mcp?.stdio != null) {
          const { name, command, args } = stdioMcpServer({
            cwd: this.options.cwd,
            yes: mode === "yes",
            allow: this.options.allow,
          });
          mcpServers.push({ type: "stdio", name, command, args, env: [] });
        } else {
          this.renderer.notice(
            "acp-terminal: --mcp-tools: the agent takes neither MCP-over-ACP nor stdio MCP servers (capabilities.session.mcp), so the terminals are not offered as tools",
          );
        }
      }
      const session = await connection.agent
        .buildSession({ cwd: this.options.cwd, mcpServers })
        .start();
      this.session = session;
      this.phase = "turn";
      void this.follow(session);
      await session.prompt(this.options.prompt);
    } catch (error) {
      ac.abort();
      const what = PHASES[this.phase].request;
      const exited = await Promise.race([
        this.launched.agent.exited,
        delay(EXIT_DRAIN_MS * 2, undefined),
      ]);
      if (exited === undefined) {
        this.end(
          what === "initialize"
            ? initializeFailure(this.options.agent, error)
            : protocolFailure(what, error),
        );
      }
    }
  }

  /**
   * Shows the session's updates until the turn ends: at the first idle state that either follows
   * a running (or requires_action) state, or gives a stop reason. (A v2 prompt's answer only says
   * that the message was taken; an idle snapshot from before the prompt has no stop reason.)
   */
  private async follow(session: ActiveSession): Promise<void> {
    let worked = false;
    try {
      for (;;) {
        const message = await session.nextUpdate(this.closing.signal);
        if (message.kind === "stop") {
          this.view.update(message.update);
          const stopReason =
            typeof message.stopReason === "string" ? message.stopReason : undefined;
          if (worked || stopReason !== undefined) {
            return this.turnEnded(message.update, stopReason);
          }
          continue;
        }
        const { update } = message;
        if (
          update.sessionUpdate === "state_update" &&
          "state" in update &&
          (update.state === "running" || update.state === "requires_action")
        ) {
          worked = true;
        }
        this.view.update(update);
      }
    } catch {
      // Aborted at the end of the run, or the session helper was disposed.
    }
  }

  private turnEnded(update: unknown, stopReason: string | undefined): void {
    if (stopReason === "error") {
      const error =
        typeof update === "object" && update !== null && "error" in update ? update.error : null;
      const detail =
        typeof error === "object" && error !== null && "message" in error
          ? error.message
          : undefined;
      return this.end({
        exitCode: ExitCode.agentFailed,
        stopReason,
        error: `The agent stopped with an error${typeof detail === "string" ? `: ${cutText(detail, 500)}` : ""}`,
      });
    }
    const exitCode =
      this.interrupts > 0
        ? ExitCode.cancelled
        : stopReason === undefined
          ? ExitCode.ok
          : // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- a v2 stop reason; one v1 does not know gets exitCodeForStopReason's default
            exitCodeForStopReason(stopReason as "end_turn");
    this.end({ exitCode, ...(stopReason === undefined ? {} : { stopReason }) });
  }

  private async agentGone(exit: AgentExit, connection: ClientConnection): Promise<void> {
    if (this.ended) {
      return;
    }
    await Promise.race([connection.closed, delay(EXIT_DRAIN_MS)]);
    await delay(0);
    this.end(
      agentExited(
        exit,
        PHASES[this.phase].agentExited,
        this.options.agent,
        this.options.agentLog,
        this.launched.agent.lastStderrLine,
      ),
    );
  }

  /**
   * The connection closed while the agent still runs (it closed its stdout, or sent a message
   * over the SDK's limit). A v2 prompt is answered as soon as it is taken, so no pending request
   * fails: without this the run would wait for an update that cannot come. An agent exit shortly
   * after is reported as such instead.
   */
  private async connectionGone(connection: ClientConnection): Promise<void> {
    if (this.ended) {
      return;
    }
    const exited = await Promise.race([
      this.launched.agent.exited,
      delay(EXIT_DRAIN_MS * 2, undefined),
    ]);
    if (exited !== undefined) {
      return; // agentGone reports the exit
    }
    const reason: unknown = connection.signal.reason;
    this.end({
      exitCode: ExitCode.agentFailed,
      error: `The agent's connection closed ${PHASES[this.phase].agentExited} (${cutText(messageOf(reason ?? "closed"), 500)}) while the agent still ran; it was stopped; ${stderrHint(this.options.agentLog)}`,
    });
  }

  private cancelTurn(connection: ClientConnection): void {
    this.cancelled.abort();
    const session = this.session;
    if (session === undefined) {
      return;
    }
    connection.agent.notify("session/cancel", { sessionId: session.sessionId }).catch(() => {
      // The agent is gone or its stdin is closed: the ending is decided elsewhere.
    });
  }

  /**
   * Ctrl-C: `terminal/cancel` to every running terminal that advertises cancel, a short wait for
   * their answers, then `session/cancel` as in v1; again: quit now.
   */
  private handleSignals(connection: ClientConnection): () => void {
    this.stops = new StopSignals({
      stdout: this.io.stdout,
      cancelGraceMs: this.options.cancelGraceMs,
      inTurn: () => this.phase === "turn",
      cancelTurn: () => {
        void this.cancelTerminals().finally(() => this.cancelTurn(connection));
      },
      end: (ending) => this.end(ending),
      notice: (message) => this.renderer.notice(message),
    });
    return this.stops.listen();
  }

  private async cancelTerminals(): Promise<void> {
    const session = this.session;
    if (session === undefined) {
      return;
    }
    let waited = false;
    const unanswered = new Set<string>();
    const cancels = this.view
      .runningTerminalIds()
      .filter((terminalId) => session.canCancelTerminal(terminalId))
      .map((terminalId) => {
        unanswered.add(terminalId);
        return session.cancelTerminal(terminalId).then(
          () => unanswered.delete(terminalId),
          (error: unknown) => {
            unanswered.delete(terminalId);
            // An answer after the wait, or the connection closing on the request, says nothing new.
            if (waited) {
              return;
            }
            // Say, a terminal that exited as the request went out (-32602 "already exited").
            const why = cutText(messageOf(error), MAX_NOTICE_CHARS);
            this.renderer.notice(`acp-terminal: terminal/cancel for ${terminalId} refused: ${why}`);
          },
        );
      });
    if (cancels.length === 0) {
      return;
    }
    await Promise.race([Promise.allSettled(cancels), delay(TERMINAL_CANCEL_WAIT_MS)]);
    waited = true;
    for (const terminalId of unanswered) {
      this.renderer.notice(
        `acp-terminal: terminal/cancel for ${terminalId}: no answer within ${TERMINAL_CANCEL_WAIT_MS / 1000} s; cancelling the turn`,
      );
    }
  }
}

/** A v2 permission request in the v1 shape the CLI's policy reads (its title, its options). */
function asV1Request(request: RequestPermissionRequest): Parameters<typeof decidePermission>[0] {
  const subject: unknown = request.subject;
  const toolCall: unknown =
    typeof subject === "object" && subject !== null && "toolCall" in subject
      ? subject.toolCall
      : undefined;
  const toolCallId: unknown =
    typeof toolCall === "object" && toolCall !== null && "toolCallId" in toolCall
      ? toolCall.toolCallId
      : typeof subject === "object" && subject !== null && "toolCallId" in subject
        ? subject.toolCallId
        : undefined;
  return {
    sessionId: request.sessionId,
    toolCall: {
      toolCallId: typeof toolCallId === "string" ? toolCallId : "",
      title: request.title,
    },
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- v2 options have the fields the policy reads (optionId, name, kind), spelled as in v1
    options: request.options as Parameters<typeof decidePermission>[0]["options"],
  };
}
