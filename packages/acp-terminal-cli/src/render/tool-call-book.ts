import type { ToolCallView } from "./tool-call-lines.js";

/** Tool calls open at once: beyond this the oldest open one is printed for good as it stands. */
export const MAX_OPEN_TOOL_CALLS = 256;
/** Finished tool calls remembered (an update for one is ignored): the oldest are forgotten beyond this. */
export const MAX_FINISHED_TOOL_CALLS = 1024;

/**
 * The tool calls the text renderer holds, in the order they started, bounded however many the
 * agent sends: the renderer prints the oldest open ones for good beyond MAX_OPEN_TOOL_CALLS, and
 * finished ones are forgotten beyond MAX_FINISHED_TOOL_CALLS.
 */
export class ToolCallBook {
  readonly #views = new Map<string, ToolCallView>();
  /** Ids of finished tool calls, oldest first. */
  readonly #finished: string[] = [];

  /** Tool calls held, open and finished. */
  get size(): number {
    return this.#views.size;
  }

  get(toolCallId: string): ToolCallView | undefined {
    return this.#views.get(toolCallId);
  }

  set(toolCallId: string, view: ToolCallView): void {
    this.#views.set(toolCallId, view);
  }

  entries(): IterableIterator<[string, ToolCallView]> {
    return this.#views.entries();
  }

  /** The oldest open tool calls while more than `max` are open, oldest first. */
  openBeyond(max: number): string[] {
    let open = 0;
    for (const view of this.#views.values()) {
      if (!view.committed) {
        open++;
      }
    }
    const beyond: string[] = [];
    for (const [id, view] of this.#views) {
      if (open - beyond.length <= max) {
        break;
      }
      if (!view.committed) {
        beyond.push(id);
      }
    }
    return beyond;
  }

  /** Remembers a finished tool call, forgetting the oldest beyond MAX_FINISHED_TOOL_CALLS. */
  finished(toolCallId: string): void {
    this.#finished.push(toolCallId);
    while (this.#finished.length > MAX_FINISHED_TOOL_CALLS) {
      const oldest = this.#finished.shift()!;
      // A tool call announced again under the same id is open again: not forgotten.
      if (this.#views.get(oldest)?.committed === true) {
        this.#views.delete(oldest);
      }
    }
  }
}
