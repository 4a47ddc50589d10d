import { renameSync, statSync } from "node:fs";
import path from "node:path";
import { errnoCodeOf, messageOf } from "acp-terminal/internal";
import { fileNameOf, stateSubdir } from "../state/state-dir.js";

/** A log past this size at start is moved to `<name>.log.1` (one older log is kept). */
export const MAX_AGENT_LOG_BYTES = 4 * 1024 * 1024;

/**
 * Where the agent's stderr goes when neither `--agent-log` nor `--agent-stderr` says: a log per
 * agent in the state directory (`logs/claude.log`), appended to, moved aside once it is over
 * MAX_AGENT_LOG_BYTES. An agent's stderr is its own chatter (claude's `[session/create] …`, stack
 * traces when it is stopped), not part of the conversation. Undefined with a reason when there is
 * no such file to be had: the stderr is then shown.
 */
export function defaultAgentLog(
  env: NodeJS.ProcessEnv,
  agentKey: string,
): { path: string } | { error: string } {
  const dir = stateSubdir(env, "logs");
  if (typeof dir !== "string") {
    return dir;
  }
  const file = path.join(dir, `${fileNameOf(agentKey)}.log`);
  try {
    if (statSync(file).size > MAX_AGENT_LOG_BYTES) {
      renameSync(file, `${file}.1`);
    }
  } catch (error) {
    if (errnoCodeOf(error) !== "ENOENT") {
      return { error: `cannot use ${file}: ${messageOf(error)}` };
    }
  }
  return { path: file };
}
