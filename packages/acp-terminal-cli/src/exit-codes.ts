/** The CLI's exit codes; `--help` and the README list them. */
export const ExitCode = {
  /** The turn ended with `end_turn`. */
  ok: 0,
  /** Bad flags or arguments, an agent command not found, an unusable `--cwd` or `--agent-log`. */
  usage: 1,
  /** The agent stopped for `refusal`, `max_tokens` or `max_turn_requests`. */
  refused: 2,
  /** The turn was cancelled (Ctrl-C, SIGTERM/SIGHUP, stdout closed, or the agent answered `cancelled`). */
  cancelled: 3,
  /** The agent crashed, exited early, or broke the protocol. */
  agentFailed: 4,
  /** `--timeout` elapsed. */
  timeout: 5,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code for a turn's stop reason (v1's and v2's words; one neither knows is a refusal). */
export function exitCodeForStopReason(stopReason: string): ExitCodeValue {
  switch (stopReason) {
    case "end_turn":
      return ExitCode.ok;
    case "cancelled":
      return ExitCode.cancelled;
    case "refusal":
    case "max_tokens":
    case "max_turn_requests":
      return ExitCode.refused;
    default:
      // A stop reason from a newer protocol revision: the turn ended, but not as asked.
      return ExitCode.refused;
  }
}

export const EXIT_CODES_HELP = `Exit codes:
  0  the turn ended normally (end_turn)
  1  usage error (bad flags, agent command not found, unusable --cwd or --agent-log)
  2  the agent refused or hit a limit (refusal, max_tokens, max_turn_requests)
  3  cancelled (Ctrl-C, SIGTERM, stdout closed, or the agent stopped with cancelled)
  4  the agent crashed, exited early, or does not speak ACP
  5  --timeout elapsed`;
