import type { RunSnapshot } from "acp-process";
import type { HostRefusal, RefusalReason } from "./mcp-call.js";
import type { ApprovalFlags } from "./policy.js";

/**
 * The one message a refused call answers with (`isError`): what was not run, why, and what to
 * do. Nobody is said to have denied anything unless a person was asked and said no.
 */
export function refusalMessage(
  command: string,
  reason: RefusalReason,
  policy: ApprovalFlags,
): string {
  switch (reason.kind) {
    case "policy": {
      const flags =
        reason.why !== ""
          ? reason.why
          : policy.allow.length > 0
            ? `no --allow pattern of this server matches it (${policy.allow.join(", ")})`
            : "this server runs nothing without --yes or a matching --allow";
      if (!reason.start) {
        return `Not done: ${command}. Only --yes allows stdin writes and signals (an --allow pattern approves starting a command, nothing else), and this client cannot be asked (it does not take MCP elicitation).`;
      }
      return `Not run: ${command}. It needs approval: ${flags}, and this client cannot be asked (it does not take MCP elicitation). To allow it, restart the server with --allow PATTERN matching it, or --yes; a pattern never matches shell syntax or a command that sets environment variables.`;
    }
    case "declined":
    case "cancelled":
    case "unclear":
      return hostRefusalMessage(command, reason);
    case "too_long":
      return `Not run: the command is too long to show whole in an approval question (${reason.chars} characters). Write it to a script file in the workspace and run that, or have the server restarted with --allow or --yes.`;
    case "call_ended":
      return `Not run: ${command}. It waited for a free slot (too many commands running) and started after the call had answered, so no one could be asked. Run it again when fewer commands run.`;
  }
}

/** An answer this soon after the question was sent came from no person: the host did not show it. */
export const UNSHOWN_WITHIN_MS = 1000;

/**
 * What the host's answer to the approval question was, quoted, and what to do next: a decline is
 * the user's no; a cancel is no decision at all (sent at once, the host did not show the question
 * to anyone: headless hosts such as `claude -p` do that unless a hook answers).
 */
function hostRefusalMessage(command: string, reason: HostRefusal): string {
  const answered = `the host answered the approval question with ${reason.answer}`;
  const when =
    reason.afterMs === undefined
      ? ""
      : reason.afterMs < UNSHOWN_WITHIN_MS
        ? ` ${reason.afterMs} ms after it was sent`
        : ` after ${(reason.afterMs / 1000).toFixed(1)} s`;
  const approve = `ask the user to approve it (in a host that shows MCP elicitation questions, or through a hook that answers them, e.g. Claude Code's Elicitation hook), or to restart this server with --allow PATTERN matching it, or --yes`;
  switch (reason.kind) {
    case "declined":
      return `Not run: ${command}. The user declined it: ${answered}${when}. Do not run it another way; if the user wants it run after all, ${approve}.`;
    case "cancelled":
      return reason.afterMs !== undefined && reason.afterMs < UNSHOWN_WITHIN_MS
        ? `Not run: ${command}. Nobody was asked: ${answered}${when}, too soon for anyone to have read it, so the host did not show the question (headless hosts such as claude -p cancel every question unless a hook answers it). To have it run, ${approve}. Do not retry it unchanged before that.`
        : `Not run: ${command}. No one approved it: ${answered}${when}, without a decision (the question was closed or not shown). To have it run, ${approve}. Do not retry it unchanged before that.`;
    case "unclear":
      return `Not run: ${command}. ${answered.charAt(0).toUpperCase()}${answered.slice(1)}${when}, which is no decision this server knows (it takes accept with decision "once" or "session"). To have it run, ${approve}.`;
  }
}

/** The message of a run that never started for another reason than approval (e.g. command not found). */
export function startFailureMessage(run: RunSnapshot): string {
  const error = run.error ?? `could not start: ${run.command}`;
  const text = error.charAt(0).toUpperCase() + error.slice(1);
  const hint =
    run.startFailure === "command_not_found"
      ? " Check the program's name, or that it is installed and on the server's PATH."
      : "";
  return `${text}.${hint}`;
}
