import type { StartFailure } from "../../model/run-record.js";
import { messageOf } from "../../base/errors.js";

/**
 * Classifies why a provider's `create` failed. acp-terminal's host (in process, or behind the ACP
 * binding as `data`) says `spawn_failed`/`denied` with the OS's errno and whether it blamed the
 * command or the cwd; other clients give only a message, matched as a fallback.
 */
export function classifyStartFailure(error: unknown): StartFailure {
  const fields =
    error !== null && typeof error === "object"
      ? (error as { code?: unknown; data?: unknown })
      : {};
  const data: object = fields.data !== null && typeof fields.data === "object" ? fields.data : {};
  const reason = "reason" in data && typeof data.reason === "string" ? data.reason : fields.code;
  if (reason === "denied") {
    return "denied";
  }
  // ENOENT for a missing cwd carries `cwd`, not `command`: that is not a missing command.
  if ("code" in data && data.code === "ENOENT" && "command" in data && !("cwd" in data)) {
    return "command_not_found";
  }
  const message = messageOf(error);
  if (/^Command not found\b/i.test(message)) {
    return "command_not_found";
  }
  if (/^Denied\b/.test(message)) {
    return "denied";
  }
  return "spawn_failed";
}
