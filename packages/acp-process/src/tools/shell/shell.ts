import { ProcessError } from "../../base/errors.js";
import { capped, logBytes, page, spawn, status } from "./shell-answers.js";
import { fitLines } from "../core/process-poll.js";
import { budgetOf } from "../core/token-budget.js";
import { shellInputSchema, SNIPPET_CHARS, STREAM_NOTE, type ShellInput } from "./shell-schema.js";
import { toolState } from "../core/tool-state.js";
import { defineTool } from "../core/types.js";
import { DEFAULT_WAIT_MS, waitFor } from "../core/wait-for.js";

export { shellInputSchema, type ShellInput } from "./shell-schema.js";

/**
 * The shell action API: `spawn | poll | log | kill | send_keys | wait` with `since_seq`/`next_seq`
 * cursors, watchers and snippets. Without `action` it is a one-shot run returning the output.
 */
export const shellTool = defineTool<ShellInput, Record<string, unknown>>({
  name: "shell",
  description:
    "Run shell commands. No action: run once and return output. spawn: start in the background (optionally with regex watchers); " +
    "poll: items after since_seq (default: after the last poll or wait of this run; returns next_seq) and a snippet; log: items after since_seq (default: from the start), or lines with offset, or bytes with byte_offset; " +
    "wait: block up to wait_secs until the run exits (sooner when it waits for input or a watcher matches; on any new item only with until 'output'), then answer with the items as poll does and what woke it; kill; send_keys: type keys into the command.",
  schema: shellInputSchema,
  async run(ctx, input) {
    const { manager, sessionId } = ctx;
    // Attached before the first run starts, so it sees every watcher hit.
    toolState(manager);
    if (input.session_id !== undefined && input.session_id !== sessionId) {
      throw ProcessError.invalidParams(
        "session_id",
        `this session's id ${JSON.stringify(sessionId)} (runs are scoped to the calling session), or no session_id`,
        input.session_id,
      );
    }
    const note = input.stream && input.stream !== "combined" ? { stream_note: STREAM_NOTE } : {};
    switch (input.action) {
      case undefined:
      case "spawn":
        return { ...(await spawn(ctx, input)), ...note };
      case "poll":
      case "log":
      case "wait": {
        const id = requireId(input);
        // poll and wait continue where this run's last answer ended; log reads from the start.
        const since =
          input.since_seq ?? (input.action === "log" ? 0 : toolState(manager).cursor(id));
        if (input.action === "log" && input.byte_offset !== undefined) {
          return { ...(await logBytes(manager, id, sessionId, input)), ...note };
        }
        if (input.action === "log" && input.offset !== undefined) {
          const view = await manager.lines(id, {
            sessionId,
            limit: capped(input.limit),
            offset: input.offset,
          });
          const fitted = fitLines(view.lines, budgetOf(input));
          return {
            ...status(view.run),
            lines: fitted.lines,
            offset: view.offset,
            total_lines: view.totalLines,
            dropped_lines: view.droppedLines,
            ...(fitted.omittedLines > 0 ? { omitted_lines: fitted.omittedLines } : {}),
            ...note,
          };
        }
        if (input.action === "wait") {
          const { woke } = await waitFor(manager, id, {
            sessionId,
            since: { seq: since },
            until: input.until ?? "exit",
            timeoutMs: Math.round((input.wait_secs ?? DEFAULT_WAIT_MS / 1000) * 1000),
          });
          return { woke, ...(await page(manager, id, sessionId, input, since, "wait")), ...note };
        }
        return { ...(await page(manager, id, sessionId, input, since, input.action)), ...note };
      }
      case "kill": {
        const id = requireId(input);
        const run = await manager.kill(id, {
          sessionId,
          ...(input.signal ? { signal: input.signal } : {}),
        });
        return { ...status(run), snippet: manager.tail(id, { maxChars: SNIPPET_CHARS }).text };
      }
      case "send_keys": {
        const id = requireId(input);
        if (!input.keys || input.keys.length === 0) {
          throw ProcessError.invalidParams(
            "keys",
            'a list of key names or text, e.g. ["y", "Enter"]',
            input.keys,
          );
        }
        await manager.sendKeys(id, input.keys, { sessionId });
        return { id, sent: input.keys.length };
      }
    }
  },
});

function requireId(input: ShellInput): string {
  if (!input.id) {
    throw ProcessError.invalidParams(
      "id",
      `the run id returned by spawn for action ${input.action} (as id or run_id)`,
      input.id,
    );
  }
  return input.id;
}
