import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import type { ProcessManager, RunSnapshot } from "acp-process";
import { BackgroundReporter } from "./background.js";
import { OUTPUT_TAIL_CHARS } from "./format.js";
import { reportError } from "./report-error.js";
import type { ExecutionMode } from "./mode.js";
import { ToolCall } from "./tool-call.js";
import { messageOf } from "./thrown.js";

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

  /** `manager` is the agent's (see `sessionsManager`): it routes this session's events to `background`. */
  constructor(
    readonly id: string,
    readonly cwd: string,
    readonly client: AgentContext,
    readonly mode: ExecutionMode,
    readonly manager: ProcessManager,
  ) {
    this.background = new BackgroundReporter(this);
  }

  /** Message text to the client, with optional machine-readable facts in `_meta["demo-agent"]`. */
  async say(text: string, facts?: Record<string, unknown>): Promise<void> {
    await this.client.notify("session/update", {
      sessionId: this.id,
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text },
        ...(facts ? { _meta: { "demo-agent": facts } } : {}),
      },
    });
  }

  /** Runs `body` as one tool call: announced pending; marked failed with the message if `body` throws. */
  async tool<T>(
    title: string,
    rawInput: Record<string, unknown>,
    body: (call: ToolCall) => Promise<T>,
  ): Promise<T> {
    const call = new ToolCall(this.client, this.id, title, rawInput);
    await call.pending();
    try {
      return await body(call);
    } catch (error) {
      await call.fail(messageOf(error));
      throw error;
    }
  }

  /** The run's terminal id when the client hosts it (so a tool call can embed it), else null. */
  terminalOf(run: RunSnapshot): string | null {
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
    signal.addEventListener("abort", kill, { once: true });
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
