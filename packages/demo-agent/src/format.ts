import type { RunSnapshot } from "acp-process";

/**
 * "completed, exit 0, 12 ms" / "timed_out after 1000 ms, signal SIGTERM" / "timed_out after 500 ms
 * without output, ..." / "failed, exit 2 (exited with code 2: make)".
 */
export function describeRun(run: RunSnapshot): string {
  const parts: string[] = [run.status === "timed_out" ? timedOut(run) : run.status];
  if (run.exitCode !== null) {
    parts.push(`exit ${run.exitCode}`);
  }
  if (run.signal !== null) {
    parts.push(`signal ${run.signal}`);
  }
  if (run.durationMs !== null) {
    parts.push(`${run.durationMs} ms`);
  }
  const summary = parts.join(", ");
  // A failure's error says why (spawn error, lost terminal); for the other statuses it repeats the above.
  return run.error !== null && (run.status === "failed" || run.status === "lost")
    ? `${summary} (${run.error})`
    : summary;
}

function timedOut(run: RunSnapshot): string {
  return run.cause === "inactivity"
    ? `timed_out after ${run.idleTimeoutMs} ms without output`
    : `timed_out after ${run.timeoutMs} ms`;
}

/** The facts of a run for `rawOutput`: what a program checking the session needs. */
export function runFacts(run: RunSnapshot): Record<string, unknown> {
  return {
    id: run.id,
    command: run.command,
    status: run.status,
    exitCode: run.exitCode,
    signal: run.signal,
    cause: run.cause,
    durationMs: run.durationMs,
    outputBytes: run.outputBytes,
    error: run.error,
  };
}

/** The last `maxChars` UTF-16 units of `text`, one fewer if the cut would split a surrogate pair. */
function lastChars(text: string, maxChars: number): string {
  const start = text.length - maxChars;
  const low = text.charCodeAt(start) >= 0xdc00 && text.charCodeAt(start) <= 0xdfff;
  return text.slice(low ? start + 1 : start);
}

/** How much of a run's output a tool call or message shows: its last this many characters. */
export const OUTPUT_TAIL_CHARS = 2000;

/** Text shown inside a code fence, cut to its last `maxChars` characters. */
export function fenced(text: string, maxChars = OUTPUT_TAIL_CHARS): string {
  const cut = text.length > maxChars ? `…${lastChars(text, maxChars)}` : text;
  return "```\n" + cut + (cut.endsWith("\n") || cut === "" ? "" : "\n") + "```";
}
