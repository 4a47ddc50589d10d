import { randomUUID } from "node:crypto";
import {
  agent,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentConnection,
  type AgentContext,
  type Implementation,
  type InitializeResponse,
  type PromptRequest,
  type ResumeSessionRequest,
} from "@agentclientprotocol/sdk/experimental/v2";
import { writeFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { packageVersion } from "acp-terminal/internal";
import type { V2Check } from "./base/check.js";
import { ALL_V2_CHECKS } from "./checks/index.js";
import { DEFAULT_CANCEL_WINDOW_MS } from "./base/cancel-scenario.js";
import { summarizeV2, summaryTextV2, type V2ConformanceReport } from "./report.js";
import { runV2Checks } from "./runner.js";
import { V2Session } from "./base/session.js";
import { messageOf } from "acp-terminal/internal";
import { cutText } from "acp-terminal/internal";

export interface ConformanceAgentV2Options {
  /** Write the JSON report here after every battery. */
  reportPath?: string | undefined;
  checks?: readonly V2Check[];
  /** How long the cancel checks wait for the client to send `terminal/cancel`; 0 skips the wait. */
  cancelWindowMs?: number | undefined;
  /** Each running battery is added here until it has ended and its report is written. */
  batteries?: Set<Promise<unknown>>;
}

interface SessionState {
  cwd: string;
  /** The running battery: its cancel, its session view for `terminal/cancel`, its end. */
  running?: { abort: AbortController; session: V2Session; done: Promise<void> } | undefined;
}

/** Characters of a client's id quoted back in an error (an unknown id may be megabytes). */
const MAX_ID_CHARS = 200;

/** Longest `session/close` waits for a cancelled battery's final updates before answering. */
const CLOSE_WAIT_MS = 10_000;

/**
 * The ACP v2 conformance agent: every prompt runs the v2 battery, which publishes agent-owned
 * terminals and judges what the client does with them. One app serves one client (stdio).
 */
export function conformanceAgentV2(options: ConformanceAgentV2Options = {}): AgentApp {
  const conformance = new ConformanceAgentV2(options);
  return agent({ name: "acp-terminal-conformance" })
    .onConnect((connection) => conformance.connect(connection))
    .onRequest("initialize", ({ params }) => conformance.initialize(params.info))
    .onRequest("session/new", ({ params }) => conformance.newSession(params.cwd))
    .onRequest("session/list", ({ params }) => conformance.listSessions(params.cwd))
    .onRequest("session/resume", ({ params, client }) => conformance.resume(params, client))
    .onRequest("session/close", ({ params }) => conformance.close(params.sessionId))
    .onNotification("session/cancel", ({ params }) => conformance.cancel(params.sessionId))
    .onRequest("terminal/cancel", ({ params }) =>
      conformance.cancelTerminal(params.sessionId, params.terminalId),
    )
    .onRequest("session/prompt", ({ params, client }) => conformance.prompt(params, client));
}

/** The sessions of one client, each with the battery running in it (at most one). */
class ConformanceAgentV2 {
  private readonly checks: readonly V2Check[];
  private readonly cancelWindowMs: number;
  private readonly sessions = new Map<string, SessionState>();
  private clientInfo: Implementation | null = null;
  private connection: AgentConnection | undefined;
  private battery = 0;

  constructor(private readonly options: ConformanceAgentV2Options) {
    this.checks = options.checks ?? ALL_V2_CHECKS;
    this.cancelWindowMs = options.cancelWindowMs ?? DEFAULT_CANCEL_WINDOW_MS;
  }

  connect(connection: AgentConnection): void {
    this.connection = connection;
  }

  initialize(info: Implementation): InitializeResponse {
    this.clientInfo = info;
    return {
      protocolVersion: PROTOCOL_VERSION,
      info: {
        name: "acp-terminal-conformance",
        version: packageVersion(new URL("../../package.json", import.meta.url)),
      },
      capabilities: { session: {} },
    };
  }

  newSession(cwd: string): { sessionId: string } {
    const sessionId = randomUUID();
    this.sessions.set(sessionId, { cwd });
    return { sessionId };
  }

  listSessions(cwd: string | null | undefined): { sessions: { sessionId: string; cwd: string }[] } {
    return {
      sessions: [...this.sessions]
        .filter(([, state]) => cwd == null || state.cwd === cwd)
        .map(([sessionId, state]) => ({ sessionId, cwd: state.cwd })),
    };
  }

  async resume(params: ResumeSessionRequest, client: AgentContext): Promise<Record<string, never>> {
    const state = this.sessions.get(params.sessionId);
    if (state === undefined) {
      throw new RequestError(-32002, "Resource not found: this process has no such session", {
        sessionId: cutText(params.sessionId, MAX_ID_CHARS),
      });
    }
    if (params.replayFrom != null && params.replayFrom.type !== "start") {
      throw RequestError.invalidParams(
        { replayFrom: params.replayFrom },
        "only the replay cursor `start` is supported",
      );
    }
    // No history is retained, so `start` replays nothing; the current-state snapshot comes
    // before the response, as the draft requires.
    await client.notify("session/update", {
      sessionId: params.sessionId,
      update:
        state.running === undefined
          ? { sessionUpdate: "state_update", state: "idle", background: [] }
          : { sessionUpdate: "state_update", state: "running", background: [] },
    });
    return {};
  }

  async close(sessionId: string): Promise<Record<string, never>> {
    const running = this.sessions.get(sessionId)?.running;
    if (running !== undefined) {
      // The final updates and the idle `cancelled` state come before the answer.
      running.abort.abort();
      const timer = new AbortController();
      await Promise.race([
        running.done,
        delay(CLOSE_WAIT_MS, undefined, { signal: timer.signal }).catch(() => undefined),
      ]);
      timer.abort();
    }
    this.sessions.delete(sessionId);
    return {};
  }

  cancel(sessionId: string): void {
    this.sessions.get(sessionId)?.running?.abort.abort();
  }

  async cancelTerminal(sessionId: string, terminalId: string): Promise<Record<string, never>> {
    const running = this.sessions.get(sessionId)?.running;
    if (running === undefined) {
      throw RequestError.invalidParams(
        { terminalId: cutText(terminalId, MAX_ID_CHARS) },
        "no conformance battery is running in this session, so it has no terminals",
      );
    }
    await running.session.onCancel(terminalId);
    return {};
  }

  /** Inserts the prompt and starts a battery (unless one runs): it reports through session updates. */
  async prompt(params: PromptRequest, client: AgentContext): Promise<{ messageId: string }> {
    const state = this.sessions.get(params.sessionId);
    if (state === undefined) {
      throw RequestError.invalidParams(
        { sessionId: cutText(params.sessionId, MAX_ID_CHARS) },
        "unknown session",
      );
    }
    const messageId = randomUUID();
    await client.notify("session/update", {
      sessionId: params.sessionId,
      update: { sessionUpdate: "user_message", messageId, content: params.prompt },
    });
    if (state.running !== undefined) {
      await client.notify("session/update", {
        sessionId: params.sessionId,
        update: {
          sessionUpdate: "agent_message_chunk",
          messageId: randomUUID(),
          content: { type: "text", text: "A conformance battery is already running here.\n" },
        },
      });
      return { messageId };
    }
    const abort = new AbortController();
    const session = new V2Session(
      client,
      params.sessionId,
      this.connection?.signal ?? new AbortController().signal,
      randomUUID(),
      state.cwd,
    );
    const running = { abort, session, done: Promise.resolve() };
    state.running = running;
    await session.state("running");
    const work = this.runBattery(session, abort.signal, ++this.battery).finally(() => {
      if (state.running === running) {
        state.running = undefined;
      }
      this.options.batteries?.delete(work);
    });
    running.done = work;
    this.options.batteries?.add(work);
    // The prompt is inserted: the battery reports its progress and end through session updates.
    return { messageId };
  }

  private async runBattery(session: V2Session, signal: AbortSignal, n: number): Promise<void> {
    const started = Date.now();
    const { clientInfo, checks } = this;
    const name = clientInfo === null ? "this client" : `${clientInfo.name} ${clientInfo.version}`;
    try {
      await session.say(
        `Running ${checks.length} ACP v2 terminal conformance checks against ${name}.\n`,
      );
      const results = await runV2Checks(checks, {
        session,
        signal,
        cancelWindowMs: this.cancelWindowMs,
        battery: n,
      });
      const summary = summarizeV2(results);
      const written = await this.writeReport({
        protocol: "v2",
        client: clientInfo,
        checks: results,
        cancels: [...session.ledger.cancels],
        cancelsDropped: session.ledger.droppedCancels,
        durationMs: Date.now() - started,
        summary,
      });
      if (session.connectionSignal.aborted) {
        return;
      }
      if (written !== undefined) {
        await session.say(`Could not write the report to ${this.options.reportPath}: ${written}\n`);
      }
      await session.say(summaryTextV2(summary));
      await session.state("idle", signal.aborted ? "cancelled" : "end_turn");
    } catch (error) {
      // A closed connection ends a battery early: there is nobody left to tell.
      if (session.connectionSignal.aborted) {
        return;
      }
      const message = messageOf(error);
      await session
        .say(`The battery stopped: ${message}\n`)
        .then(() =>
          session.rawUpdate({
            sessionUpdate: "state_update",
            state: "idle",
            background: [],
            stopReason: "error",
            error: { code: -32603, message },
          }),
        )
        .catch(() => undefined);
    }
  }

  /** Writes the report where the options say; the reason it could not be written, if so. */
  private async writeReport(report: V2ConformanceReport): Promise<string | undefined> {
    const { reportPath } = this.options;
    if (reportPath === undefined) {
      return undefined;
    }
    return writeFile(reportPath, `${JSON.stringify(report, null, 2)}\n`, "utf8").then(
      () => undefined,
      (error: unknown) => messageOf(error),
    );
  }
}
