import type { RunSnapshot } from "acp-process";

/** "completed, exit 0, 12 ms" / "timed_out after 1000 ms, signal SIGTERM" / "failed, exit 2 (exited with code 2: make)". */
export function describeRun(run: RunSnapshot): string {
  const parts: string[] = [run.status === "timed_out" ? `timed_out after ${run.timeoutMs} ms` : run.status];
  if (run.exitCode !== null) parts.push(`exit ${run.exitCode}`);
  if (run.signal !== null) parts.push(`signal ${run.signal}`);
  if (run.durationMs !== null) parts.push(`${run.durationMs} ms`);
  const summary = parts.join(", ");
  // A failure's error says why (spawn error, lost terminal); for the other statuses it repeats the above.
  return run.error !== null && (run.status === "failed" || run.status === "lost") ? `${summary} (${run.error})` : summary;
}

/** The facts of a run for `rawOutput`: what a program checking the session needs. */
export function runFacts(run: RunSnapshot): Record<string, unknown> {
  return {
    id: run.id,
    command: run.command,
    status: run.status,
    exitCode: run.exitCode,
    signal: run.signal,
    durationMs: run.durationMs,
    outputBytes: run.outputBytes,
    error: run.error,
  };
}

/** Text shown inside a code fence, cut to its last `maxChars` characters. */
export function fenced(text: string, maxChars = 2000): string {
  const cut = text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
  return "```\n" + cut + (cut.endsWith("\n") || cut === "" ? "" : "\n") + "```";
}

/** A one-line preview of output for message text: `"step 1/5", "step 2/5"`. */
export function quoteLines(text: string, maxLines = 3): string {
  const lines = text.split("\n").filter((line) => line !== "");
  const shown = lines.slice(0, maxLines).map((line) => JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line));
  const more = lines.length > maxLines ? ` and ${lines.length - maxLines} more` : "";
  return lines.length === 0 ? "(no new output)" : shown.join(", ") + more;
}
