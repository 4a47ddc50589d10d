import { commandLine } from "../runs/run/describe.js";
import type { ProcessManager } from "../runs/manager/manager.js";
import type { RunSnapshot } from "../model/run-events.js";

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

/** The output a model sees for a finished or yielded run: the tail, capped, with what was cut said. */
export function outputFor(
  manager: ProcessManager,
  run: RunSnapshot,
  maxChars = manager.limits.maxOutputChars,
): { output: string; truncated: boolean; note?: string } {
  const tail = manager.tail(run.id, { maxChars });
  const notes: string[] = [];
  if (tail.truncated) {
    notes.push(
      `output truncated to the last ${maxChars} characters; use process log with offset/limit to read more of what is retained`,
    );
  }
  if (run.lostBytes > 0) {
    notes.push(`${run.lostBytes} bytes were dropped by the client before they could be read`);
  }
  if (run.lostUnknown) {
    notes.push("some output was dropped by the client before it could be read");
  }
  return {
    output: tail.text,
    truncated: tail.truncated,
    ...(notes.length > 0 ? { note: notes.join("; ") } : {}),
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
