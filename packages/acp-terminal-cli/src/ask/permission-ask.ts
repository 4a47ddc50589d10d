import type { DiffShown } from "../view/renderer.js";

/**
 * What a permission request is about, whatever the version and the agent (drivers read it: see
 * readers/permission-subject.ts): a command the agent runs itself (a shell line, or an argv),
 * where, the files it names, the edit's diffs.
 */
export interface PermissionSubject {
  /** The tool call's kind as the agent says it (`read`, `edit`, `execute`, `search`, …). */
  kind: string | undefined;
  /** The tool's name as the agent gives it (claude's `Bash`, `Edit`), when it does. */
  tool?: string | undefined;
  command: { line: string } | { argv: string[] } | undefined;
  cwd: string | undefined;
  /** The files it names (locations, diff paths). */
  paths: string[];
  diffs: DiffShown[];
  /** The raw input, for a tool call that is neither a command nor an edit. */
  rawInput: unknown;
  /** The subject was of a type this client does not know (v2): shown whole. */
  unknown?: unknown;
}

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
  /** What it is about, for the rules (`--allow`, `--approve-reads`, the policy). */
  subject?: PermissionSubject | undefined;
}

/** The answer, in the shape both versions' `session/request_permission` results take. */
export interface PermissionAnswer {
  outcome: { outcome: "cancelled" } | { outcome: "selected"; optionId: string };
}
