import { commandLine } from "../../runs/run/describe.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import type { RunSnapshot } from "../../model/run-events.js";
import { streamOffset } from "../../model/run-record.js";
import {
  BYTES_PER_TOKEN,
  budgetedRange,
  budgetedTail,
  budgetFields,
  HINT_LIMIT_BYTES,
  type Keep,
  type ReadHint,
} from "./token-budget.js";

/** Characters of a command line or an error an answer about a run shows; the rest is counted. */
export const SHOWN_COMMAND_CHARS = 500;

/**
 * `text` cut to `max` characters, with how long it was: what an answer shows of a command line
 * or an error a run carries (a command may be up to 128 KiB, and an answer lists up to 500 runs).
 */
export function shownText(text: string, max = SHOWN_COMMAND_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** A short summary of a run for list views. */
export function runSummary(run: RunSnapshot): Record<string, unknown> {
  return {
    id: run.id,
    status: run.status,
    command: shownText(commandLine(run)),
    exitCode: run.exitCode,
    signal: run.signal,
    startedAt: run.startedAtMs === null ? null : new Date(run.startedAtMs).toISOString(),
    durationMs: run.durationMs,
    ...(run.error ? { error: shownText(run.error) } : {}),
  };
}

/**
 * A run waiting for input, as an answer says it (absent otherwise): the prompt it printed, how it
 * was seen (`proc`: blocked reading its input, seen in /proc; `prompt`: its last line looks like
 * one), since when, and what to do.
 */
/**
 * The run's notices (acp-process's own remarks: output the client dropped, a signal it could not
 * send, a read that failed) in a field beside the output, never inside it; nothing when there are
 * none. Past the record's cap, the last entry says how many more its notice items hold.
 */
export function noticeFields(run: RunSnapshot): { notices?: string[] } {
  const notices = run.notices ?? [];
  if (notices.length === 0) {
    return {};
  }
  const more = run.noticesLeftOut ?? 0;
  return {
    notices:
      more > 0 ? [...notices, `${more} more notices are in the run's history`] : [...notices],
  };
}

export function inputFields(
  run: RunSnapshot,
  style: "snake" | "camel",
  answer: string,
): Record<string, unknown> {
  const waiting = run.inputRequired;
  if (!waiting || run.status !== "running") {
    return {};
  }
  const since = new Date(waiting.sinceMs).toISOString();
  const note = `the command ${waiting.detectedBy === "proc" ? "waits" : "seems to wait"} for input${waiting.prompt ? ` (it printed ${JSON.stringify(waiting.prompt)})` : ""}: answer with ${answer}`;
  return style === "snake"
    ? {
        input_required: {
          prompt: waiting.prompt,
          detected_by: waiting.detectedBy,
          ...(waiting.how ? { how: waiting.how } : {}),
          since,
        },
        input_note: note,
      }
    : {
        inputRequired: {
          prompt: waiting.prompt,
          detectedBy: waiting.detectedBy,
          ...(waiting.how ? { how: waiting.how } : {}),
          since,
        },
        inputNote: note,
      };
}

/** How the exec/process surface names omitted bytes: the `process` log call that reads them. */
export function processLogHint(runId: string): ReadHint {
  return (offset, bytes) =>
    `process ${JSON.stringify({ action: "log", sessionId: runId, byteOffset: offset, byteLimit: Math.min(bytes, HINT_LIMIT_BYTES) })}`;
}

/**
 * The output a model sees for a finished run: all of it within the budget (at most
 * `maxOutputChars` bytes as well), else its head and tail around a marker that says what was left
 * out and how to read it; losses are said in `note`.
 */
export async function outputFor(
  manager: ProcessManager,
  run: RunSnapshot,
  budget: { maxTokens: number; keep: Keep },
  sessionId?: string,
): Promise<{ output: string; truncated: boolean; note?: string } & Record<string, unknown>> {
  const maxTokens = Math.min(
    budget.maxTokens,
    Math.floor(manager.limits.maxOutputChars / BYTES_PER_TOKEN),
  );
  const cut = await budgetedRange(manager, run.id, {
    ...(sessionId !== undefined ? { sessionId } : {}),
    from: 0,
    to: streamOffset(run),
    maxTokens,
    keep: budget.keep,
    hint: processLogHint(run.id),
  }).catch(() => {
    // The start is gone (evicted, not retained): what is retained, its tail.
    const tail = manager.tail(run.id, { maxChars: maxTokens * BYTES_PER_TOKEN });
    return budgetedTail(tail.text, streamOffset(run), {
      maxTokens,
      keep: "tail",
      hint: processLogHint(run.id),
    });
  });
  const notes: string[] = [];
  if (run.lostBytes > 0) {
    notes.push(`${run.lostBytes} bytes were dropped by the client before they could be read`);
  }
  if (run.lostUnknown) {
    notes.push("some output was dropped by the client before it could be read");
  }
  return {
    output: cut.text,
    truncated: cut.truncated,
    ...budgetFields(cut, "camel"),
    ...(notes.length > 0 ? { note: notes.join("; ") } : {}),
    ...noticeFields(run),
  };
}

/** Shell words that only prefix the command that matters (`sudo npm test` is about npm). */
const PREFIXES = new Set(["sudo", "env", "nohup", "time", "exec", "nice", "command", "builtin"]);
const NAME_MAX_CHARS = 60;

/**
 * A short name for list views, as the exec design's derived `name`: the command's verb (the
 * program's base name, after env assignments and prefixes such as `sudo`) and its target (the
 * first argument that is not an option): `npm run build` → `npm run`, `cd app && make test` →
 * `cd app`, `python3 /srv/train.py --epochs 3` → `python3 train.py`.
 */
export function derivedName(run: Pick<RunSnapshot, "command" | "args">): string {
  const words = run.args
    ? [run.command, ...run.args]
    : (run.command.split(/&&|\|\||[;|\n]/)[0] ?? "").trim().split(/\s+/);
  let i = 0;
  while (
    i < words.length &&
    (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || PREFIXES.has(words[i]!))
  ) {
    i++;
  }
  const verb = baseName(words[i] ?? run.command);
  const target = words.slice(i + 1).find((word) => word.length > 0 && !word.startsWith("-"));
  const name = target ? `${verb} ${baseName(target.replace(/^['"]|['"]$/g, ""))}` : verb;
  return name.length > NAME_MAX_CHARS ? `${name.slice(0, NAME_MAX_CHARS - 1)}…` : name;
}

function baseName(word: string): string {
  const trimmed = word.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || word;
}
