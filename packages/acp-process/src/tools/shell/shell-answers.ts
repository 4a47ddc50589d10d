import { ProcessError } from "../../base/errors.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import type { RunItem } from "../../model/run-record.js";
import type { RunSnapshot } from "../../model/run-events.js";
import { fitItems } from "./byte-budget.js";
import { inputFields, noticeFields } from "../core/format.js";
import { MAX_LOG_BYTES } from "../core/process-poll.js";
import { streamOffset } from "../../model/run-record.js";
import {
  BYTES_PER_TOKEN,
  budgetedRange,
  budgetedTail,
  budgetFields,
  budgetOf,
  HINT_LIMIT_BYTES,
  type Keep,
  type ReadHint,
} from "../core/token-budget.js";
import {
  CUT_NOTE,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_S,
  MAX_LIMIT,
  SNIPPET_CHARS,
  type ShellInput,
} from "./shell-schema.js";
import { toolState } from "../core/tool-state.js";
import { fromContext, type ToolContext } from "../core/types.js";

export function status(run: RunSnapshot): Record<string, unknown> {
  const capped = run.cappedBytes ?? 0;
  return {
    id: run.id,
    status: run.status,
    exit_code: run.exitCode,
    signal: run.signal,
    duration_ms: run.durationMs,
    started_at: run.startedAtMs === null ? null : new Date(run.startedAtMs).toISOString(),
    ended_at: run.endedAtMs === null ? null : new Date(run.endedAtMs).toISOString(),
    // Output the run did not keep: past max_output_bytes, or dropped by the client before it was read.
    truncated: capped > 0 || run.lostBytes > 0 || run.lostUnknown,
    ...(capped > 0 ? { capped_bytes: capped } : {}),
    ...inputFields(run, "snake", `action send_keys with keys, e.g. ["yes", "Enter"]`),
    ...(run.error ? { error: run.error } : {}),
  };
}

/** An item as the shell surface numbers it (from 1) and shows it; event items are `{event, match}`. */
export function shown(item: RunItem): Record<string, unknown> {
  if (item.kind !== "event") {
    return { seq: item.seq + 1, kind: item.kind, text: item.text };
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- watcher hit items are written by output-log.ts as JSON.stringify({ event, match })
    const { event, match } = JSON.parse(item.text) as { event: string; match: string };
    return { seq: item.seq + 1, kind: "event", event, match };
  } catch {
    return { seq: item.seq + 1, kind: "event", text: item.text };
  }
}

/** One-shot run, `spawn` (returns at once) and `spawn` with `background: false` (waits, as one-shot). */
export async function spawn(ctx: ToolContext, input: ShellInput): Promise<Record<string, unknown>> {
  const { manager, sessionId } = ctx;
  if (!input.command) {
    throw ProcessError.invalidParams("command", "a command line", input.command);
  }
  const waits = input.action === undefined || input.background === false;
  const started = await manager.start({
    sessionId,
    command: input.command,
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(input.env ? { env: input.env } : {}),
    ...(input.pty ? { pty: true } : {}),
    ...(input.watch ? { watch: input.watch } : {}),
    ...(input.max_output_bytes !== undefined ? { maxOutputBytes: input.max_output_bytes } : {}),
    ...(input.action === "spawn" ? { stdin: true } : {}),
    // A call that waits is bounded; a background run runs until it ends unless told otherwise.
    timeoutMs:
      input.timeout_secs !== undefined
        ? Math.round(input.timeout_secs * 1000)
        : waits
          ? DEFAULT_TIMEOUT_S * 1000
          : 0,
    ...fromContext(ctx, "shell"),
  });
  if (!waits) {
    return { ...status(started), next_seq: 0 };
  }
  const run = await manager.wait(started.id);
  toolState(manager).setCursor(run.id, run.nextSeq);
  const cut = await budgetedRange(manager, run.id, {
    sessionId,
    from: 0,
    to: streamOffset(run),
    ...shellBudget(input),
    hint: shellLogHint(run.id),
  }).catch(() => {
    // The start is gone (not kept, evicted): the retained tail.
    const { maxTokens } = shellBudget(input);
    const tail = manager.tail(run.id, { maxChars: maxTokens * BYTES_PER_TOKEN });
    return budgetedTail(tail.text, streamOffset(run), {
      maxTokens,
      keep: "tail",
      hint: shellLogHint(run.id),
    });
  });
  return {
    ...status(run),
    output: cut.text,
    truncated: cut.truncated || status(run).truncated === true,
    ...budgetFields(cut, "snake"),
    ...noticeFields(run),
    // What this answer showed is the whole output: a poll continues after it.
    ...(input.action === "spawn" ? { next_seq: run.nextSeq } : {}),
  };
}

/**
 * The poll/log/wait answer: items strictly after `since` (shell numbering), within the byte budget.
 * poll and wait move the run's cursor to the answer's end (where the next one continues by
 * default) and list the watcher hits since `since`; poll adds the spec's snippet (a bounded view of
 * the latest output, which repeats the newest items by design); wait leaves it out.
 */
export async function page(
  manager: ProcessManager,
  id: string,
  sessionId: string,
  input: ShellInput,
  since: number,
  action: "poll" | "log" | "wait",
): Promise<Record<string, unknown>> {
  const budget = Math.min(
    input.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    shellBudget(input).maxTokens * BYTES_PER_TOKEN,
  );
  // Shell seq n is the manager's item n - 1: "strictly after n" is the manager's "from n".
  const read = await manager
    .read(id, { sessionId, sinceSeq: since, limit: capped(input.limit), maxChars: budget })
    .catch((error: unknown) => {
      // Name the tool's field, not the manager's option.
      if (error instanceof ProcessError && error.code === "invalid_params") {
        throw new ProcessError(
          "invalid_params",
          `Invalid since_seq: expected a seq from 0 to the run's last seq (pass next_seq, or the last seq you saw), received ${since}`,
        );
      }
      throw error;
    });
  // maxChars counts UTF-16 units of whole items; the byte budget is exact.
  const fitted = fitItems(read.items, budget, read.nextSeq);
  const state = toolState(manager);
  if (action !== "log") {
    state.setCursor(id, fitted.nextSeq);
  }
  return {
    ...status(read.run),
    items: fitted.items.map(shown),
    next_seq: fitted.nextSeq,
    ...(fitted.cut
      ? {
          cut_item: {
            seq: fitted.cut.seq + 1,
            omitted_bytes: fitted.cut.omittedBytes,
            note: CUT_NOTE,
          },
        }
      : {}),
    ...(read.missedItems > 0 ? { missed_items: read.missedItems } : {}),
    done: read.done && fitted.nextSeq >= read.nextSeq,
    ...(action !== "log"
      ? { watch_hits: state.hitsSince(id, since).map((hit) => ({ ...hit, seq: hit.seq + 1 })) }
      : {}),
    ...(action === "poll" ? { snippet: manager.tail(id, { maxChars: SNIPPET_CHARS }).text } : {}),
  };
}

export function capped(limit: number | undefined): number {
  return Math.min(limit ?? 100, MAX_LIMIT);
}

/** The answer's token budget: `max_output_tokens` (default 10000), within `max_output_bytes` when given. */
export function shellBudget(input: ShellInput): { maxTokens: number; keep: Keep } {
  const budget = budgetOf(input);
  const bytes = input.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return { ...budget, maxTokens: Math.min(budget.maxTokens, Math.floor(bytes / BYTES_PER_TOKEN)) };
}

/** How the shell surface names omitted bytes: the log call that reads them. */
export function shellLogHint(runId: string): ReadHint {
  return (offset, bytes) =>
    `shell ${JSON.stringify({ action: "log", id: runId, byte_offset: offset, byte_limit: Math.min(bytes, HINT_LIMIT_BYTES) })}`;
}

/** `log` with `byte_offset`: output bytes by absolute offset, within the budget. */
export async function logBytes(
  manager: ProcessManager,
  id: string,
  sessionId: string,
  input: ShellInput,
): Promise<Record<string, unknown>> {
  const view = await manager.wholeCharacterBytes(id, {
    sessionId,
    offset: input.byte_offset ?? 0,
    limit: Math.min(input.byte_limit ?? MAX_LOG_BYTES, MAX_LOG_BYTES),
  });
  const nextOffset = view.offset + view.byteLength;
  const cut = await budgetedRange(manager, id, {
    sessionId,
    from: view.offset,
    to: nextOffset,
    ...budgetOf(input),
    hint: shellLogHint(id),
  });
  return {
    ...status(view.run),
    output: cut.text,
    byte_offset: view.offset,
    next_byte_offset: nextOffset,
    total_bytes: view.totalBytes,
    ...budgetFields(cut, "snake"),
  };
}
