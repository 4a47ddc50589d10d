import { randomUUID } from "node:crypto";
import path from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import type { ProcessManager, RunSnapshot } from "acp-process";
import type { TerminalPublisher } from "acp-process/v2";
import { BackgroundReporter } from "./background.js";
import { OUTPUT_TAIL_CHARS } from "./format.js";
import { reportError } from "./report-error.js";
import type { ExecutionMode } from "./mode.js";
import { ToolCall, type SessionNotifier } from "./tool-call.js";
import { messageOf } from "acp-terminal/internal";

/** `session/new`'s cwd: an absolute path, else invalid params. */
export function checkSessionCwd(cwd: string): void {
  if (!path.isAbsolute(cwd)) {
    throw RequestError.invalidParams(
      { cwd },
      `cwd must be an absolute path, received ${JSON.stringify(cwd)}`,
    );
  }
}

/** Background runs get this hard timeout, so a forgotten `bg` does not run forever. */
export const BACKGROUND_TIMEOUT_MS = 10 * 60_000;

/**
 * One ACP session: where its commands run (the mode), the poll cursor of each run, and the
 * reporter that tells the client when background runs end. Its runs live in the agent's manager.
 */
export class DemoSession {
  readonly background: BackgroundReporter;
  /** `poll` cursor per run: the `next_seq` returned by the previous poll. */
  readonly cursors = new Map<string, number>();
  /** Aborted by `session/cancel`; replaced at the start of each turn. */
  turn = new AbortController();
  introduced = false;
  /** ACP v2: the agent message the current turn's text goes to (null between turns: one message per remark). */
  messageId: string | null = null;

  /**
   * `manager` is the agent's (see `sessionsManager`): it routes this session's events to
   * `background`. `publisher` is given on an ACP v2 connection: runs show as its agent-owned
   * terminals, and every update goes out after the terminal updates queued before it.
   */
  constructor(
    readonly id: string,
    readonly cwd: string,
    readonly client: SessionNotifier,
    readonly mode: ExecutionMode,
    readonly manager: ProcessManager,
    readonly publisher?: TerminalPublisher,
  ) {
    this.background = new BackgroundReporter(this);
  }

  /** The ACP version this session speaks. */
  get protocolVersion(): 1 | 2 {
    return this.publisher === undefined ? 1 : 2;
  }

  /** Sends one `session/update`; under v2 after the terminal updates queued before it. */
  async notify(update: Record<string, unknown> & { sessionUpdate: string }): Promise<void> {
    if (this.publisher !== undefined) {
      await this.publisher.settled();
    }
    await this.client.notify("session/update", { sessionId: this.id, update });
  }

  /** Message text to the client, with optional machine-readable facts in `_meta["demo-agent"]`. */
  async say(text: string, facts?: Record<string, unknown>): Promise<void> {
    await this.notify({
      sessionUpdate: "agent_message_chunk",
      // v2: every chunk names its message.
      ...(this.publisher !== undefined ? { messageId: this.messageId ?? randomUUID() } : {}),
      content: { type: "text", text },
      ...(facts ? { _meta: { "demo-agent": facts } } : {}),
    });
  }

  /** Runs `body` as one tool call: announced pending; marked failed with the message if `body` throws. */
  async tool<T>(
    title: string,
    rawInput: Record<string, unknown>,
    body: (call: ToolCall) => Promise<T>,
  ): Promise<T> {
    const call = new ToolCall(
      (update) => this.notify(update),
      title,
      rawInput,
      this.protocolVersion,
    );
    await call.pending();
    try {
      return await body(call);
    } catch (error) {
      await call.fail(messageOf(error));
      throw error;
    }
  }

  /**
   * The terminal a tool call can embed for a run: the client's own (v1 client terminals), the
   * run's agent-owned terminal (v2: published under the run's id), else null.
   */
  terminalOf(run: RunSnapshot): string | null {
    if (this.publisher !== undefined && this.publisher.has(this.id, run.id)) {
      return run.id;
    }
    return this.mode.clientTerminals ? run.terminalId : null;
  }

  /** The last OUTPUT_TAIL_CHARS characters of a run's output. */
  outputTail(runId: string): string {
    return this.manager.tail(runId, { maxChars: OUTPUT_TAIL_CHARS }).text;
  }

  /** Waits for a run to finish; a `session/cancel` meanwhile kills it. */
  async untilDone(runId: string): Promise<RunSnapshot> {
    const signal = this.turn.signal;
    // A failed kill is reported; the wait below still settles (acp-process bounds every kill).
    const kill = (): void =>
      void this.manager
        .kill(runId, { sessionId: this.id })
        .catch((error: unknown) => reportError(`killing ${runId} on cancel`, error));
    // A cancel read before this wait (while the run was starting) has already aborted the turn.
    if (signal.aborted) {
      kill();
    } else {
      signal.addEventListener("abort", kill, { once: true });
    }
    try {
      return await this.manager.wait(runId, { sessionId: this.id });
    } finally {
      signal.removeEventListener("abort", kill);
    }
  }

  /** Kills this session's live runs; each releases its terminal. */
  async dispose(): Promise<void> {
    this.turn.abort();
    const live = this.manager.list({
      sessionId: this.id,
      status: ["running", "queued"],
      limit: 500,
    });
    await Promise.all(
      live.map((run) =>
        this.manager
          .kill(run.id, { sessionId: this.id })
          .catch((error: unknown) =>
            reportError(`killing ${run.id} at the end of the session`, error),
          ),
      ),
    );
  }
}
