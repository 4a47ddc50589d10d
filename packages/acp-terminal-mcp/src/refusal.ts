import type { RunSnapshot } from "acp-process";
import type { RefusalReason } from "./mcp-call.js";
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
      return `Not run: ${command}. The user was asked and declined it; do not retry it unchanged.`;
    case "dismissed":
      return `Not run: ${command}. The user was asked and closed the question without answering; retry only if the user wants it run.`;
    case "too_long":
      return `Not run: the command is too long to show whole in an approval question (${reason.chars} characters). Write it to a script file in the workspace and run that, or have the server restarted with --allow or --yes.`;
    case "call_ended":
      return `Not run: ${command}. It waited for a free slot (too many commands running) and started after the call had answered, so no one could be asked. Run it again when fewer commands run.`;
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
