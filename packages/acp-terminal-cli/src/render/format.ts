import type { ExitStatus } from "acp-terminal";
import type { RunResult, TerminalRecord } from "../view/renderer.js";

export function formatExitStatus(status: ExitStatus | undefined): string {
  if (status === undefined) {
    return "still running";
  }
  if (status.signal !== null) {
    return `killed by ${status.signal}`;
  }
  if (status.exitCode !== null) {
    return `exit ${status.exitCode}`;
  }
  return "exited";
}

export function formatElapsed(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "3 terminals: 2 exit 0, 1 killed by SIGTERM" — statuses counted, in order of first appearance. */
function formatTerminals(terminals: readonly TerminalRecord[]): string {
  if (terminals.length === 0) {
    return "no terminals";
  }
  const counts = new Map<string, number>();
  for (const t of terminals) {
    const status = formatExitStatus(t.exitStatus);
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  const parts = [...counts].map(([status, n]) => `${n} ${status}`);
  return `${terminals.length} terminal${terminals.length === 1 ? "" : "s"}: ${parts.join(", ")}`;
}

/** The closing line of a run, for people. */
export function formatSummary(result: RunResult): string {
  const outcome = result.stopReason ?? "no stop reason";
  return `── ${outcome} · ${formatTerminals(result.terminals)} · ${formatElapsed(result.elapsedMs)} · exit code ${result.exitCode}`;
}
