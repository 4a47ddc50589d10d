import { checkExecutorTarget } from "acp-terminal";

/**
 * `--on` checked (an error message when wrong); `docker-image://` without a workspace gets the
 * session's cwd mounted at the same path, so the paths the agent sees are valid in the container.
 */
export function executorTarget(on: string, sessionCwd: string): string {
  const problem = checkExecutorTarget(on);
  if (problem !== undefined) {
    return `Invalid --on: ${problem}`;
  }
  if (!on.startsWith("docker-image://") || /[?&]workspace=/.test(on)) {
    return on;
  }
  return `${on}${on.includes("?") ? "&" : "?"}workspace=${encodeURIComponent(sessionCwd)}`;
}
