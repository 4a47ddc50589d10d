/** One option of a permission request, as the agent words it (`kind`: `allow_once`, `reject_always`, …). */
export interface PermissionChoice {
  optionId: string;
  name: string;
  kind: string;
}

/**
 * A permission request as the user's policy reads it, whatever the protocol version: the tool
 * call it is about (its title, else its id) and the options. ACP v1's `session/request_permission`
 * params are one as they come; a v2 driver builds one from its request.
 */
export interface PermissionAsk {
  toolCall: { toolCallId: string; title?: string | null | undefined };
  options: readonly PermissionChoice[];
  /**
   * Lines shown under the title, saying what is really approved (a v2 request's description and
   * subject: the command and cwd a title may not name).
   */
  details?: readonly string[] | undefined;
}

/** The answer, in the shape both versions' `session/request_permission` results take. */
export interface PermissionAnswer {
  outcome: { outcome: "cancelled" } | { outcome: "selected"; optionId: string };
}
