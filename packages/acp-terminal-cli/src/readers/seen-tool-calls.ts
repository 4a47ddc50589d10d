import type { DiffShown, Renderer } from "../view/renderer.js";
import { inputDiff, shownContent } from "./tool-call-content.js";

/** Tool call ids remembered at most (the oldest forgotten first), and the diffs of how many. */
const MAX_SEEN = 1024;
const MAX_WITH_DIFFS = 64;

/**
 * The tool calls a v1 session's updates announced, so that a permission request about one no
 * update announced (Gemini CLI asks about an edit it reports nowhere else) shows it, as if an
 * update had: its title, `pending`, its content (a diff) and what its raw input edits.
 */
export class SeenToolCalls {
  readonly #ids = new Set<string>();
  /** The diffs the newest tool calls showed, for a permission request that leaves them out. */
  readonly #diffs = new Map<string, DiffShown[]>();

  /** An update showed these diffs (its content's, or what its raw input edits) for the tool call. */
  showed(toolCallId: string, diffs: readonly DiffShown[]): void {
    if (diffs.length === 0) {
      return;
    }
    this.#diffs.delete(toolCallId);
    this.#diffs.set(toolCallId, [...diffs]);
    if (this.#diffs.size > MAX_WITH_DIFFS) {
      const oldest = this.#diffs.keys().next().value;
      if (oldest !== undefined) {
        this.#diffs.delete(oldest);
      }
    }
  }

  /** The diffs an update showed for the tool call, if any. */
  diffsOf(toolCallId: string): DiffShown[] {
    return this.#diffs.get(toolCallId) ?? [];
  }

  seen(toolCallId: string): void {
    this.#ids.delete(toolCallId);
    this.#ids.add(toolCallId);
    if (this.#ids.size > MAX_SEEN) {
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) {
        this.#ids.delete(oldest);
      }
    }
  }

  /** Shows the permission request's tool call unless an update announced it. */
  announce(
    toolCall: { toolCallId: string; title?: string | null; content?: unknown; rawInput?: unknown },
    view: Renderer,
  ): void {
    if (this.#ids.has(toolCall.toolCallId)) {
      return;
    }
    this.seen(toolCall.toolCallId);
    view.toolCallStarted({
      toolCallId: toolCall.toolCallId,
      title: toolCall.title ?? toolCall.toolCallId,
      status: "pending",
      content: shownContent(Array.isArray(toolCall.content) ? toolCall.content : []),
      ...inputDiff(toolCall.rawInput),
    });
  }
}
