import { randomUUID } from "node:crypto";
import type { ToolCallContent, ToolCallStatus } from "@agentclientprotocol/sdk/unstable";
import type { RunSnapshot } from "acp-process";

/** Where a session's updates go: the SDK's `AgentContext` (v1 or v2) has this `notify`. */
export interface SessionNotifier {
  notify(method: "session/update", params: { sessionId: string; update: object }): Promise<void>;
}

/** Sends one session update of this session. */
export type UpdateSender = (
  update: Record<string, unknown> & { sessionUpdate: string },
) => Promise<void>;

/**
 * One tool call as the client sees it: announced `pending`, then `in_progress` (with the run's
 * terminal embedded when the client hosts it, and the output so far while it runs), then
 * `completed` or `failed` with the result as text.
 */
export class ToolCall {
  readonly id = `call_${randomUUID()}`;
  /** Kept in every later update: an update's `content` replaces the previous content. */
  private terminalId: string | null = null;
  /** The text of the `in_progress` update, kept above the output of later ones. */
  private runningText: string | undefined;

  /** `protocolVersion` 2: the draft has no `tool_call`; a `tool_call_update` with a new id creates one. */
  constructor(
    private readonly send: UpdateSender,
    private readonly title: string,
    private readonly rawInput: Record<string, unknown>,
    private readonly protocolVersion: 1 | 2 = 1,
  ) {}

  async pending(): Promise<void> {
    await this.send({
      sessionUpdate: this.protocolVersion === 1 ? "tool_call" : "tool_call_update",
      toolCallId: this.id,
      title: this.title,
      kind: "execute",
      status: "pending",
      rawInput: this.rawInput,
    });
  }

  /** `terminalId` is given only for a terminal the client hosts (the ACP provider). */
  async running(terminalId: string | null, text?: string): Promise<void> {
    this.terminalId = terminalId;
    this.runningText = text;
    await this.update("in_progress", text === undefined ? [] : [textContent(text)]);
  }

  /** A status update while it runs: the text given to `running`, then `output`. */
  async progress(output: string): Promise<void> {
    await this.update("in_progress", [
      textContent(this.runningText === undefined ? output : `${this.runningText}\n${output}`),
    ]);
  }

  async finish(status: ToolCallStatus, text: string, rawOutput: unknown): Promise<void> {
    await this.update(status, [textContent(text)], rawOutput);
  }

  /** A tool call that failed before it ran anything (bad id, spawn error). */
  async fail(message: string): Promise<void> {
    await this.update("failed", [textContent(message)], { error: message });
  }

  private async update(
    status: ToolCallStatus,
    text: ToolCallContent[],
    rawOutput?: unknown,
  ): Promise<void> {
    const content: ToolCallContent[] =
      this.terminalId === null
        ? text
        : [{ type: "terminal", terminalId: this.terminalId }, ...text];
    await this.send({
      sessionUpdate: "tool_call_update",
      toolCallId: this.id,
      status,
      content,
      ...(rawOutput !== undefined ? { rawOutput } : {}),
    });
  }
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** A run that ended with exit code 0 completed; anything else (failure, timeout, kill) failed. */
export function toolStatusOf(run: RunSnapshot): ToolCallStatus {
  return run.status === "completed" ? "completed" : "failed";
}
