import type { CommandLauncher } from "./launch-port.js";
import { checkWorkingDirectory } from "./errors.js";
import { spawnLaunched } from "./launched.js";
import { spawnWithPipes } from "./pipes.js";
import { spawnWithPty } from "./pty.js";
import type { SpawnedProcess, SpawnRequest } from "./types.js";

/**
 * Starts a command with the backend the request selects: through `launcher` when given (see
 * launched.ts), else forked from this process. With pipes the working directory is
 * looked at only when the spawn failed: the OS then blames the command (ENOENT) for a missing cwd,
 * and the error says which was missing, without a stat before every spawn. node-pty cannot report
 * a bad cwd at all (the child prints an error and exits 1), so a PTY's is checked first.
 */
export async function spawnProcess(
  request: SpawnRequest,
  launcher?: CommandLauncher,
): Promise<SpawnedProcess> {
  const { pty } = request;
  if (launcher) {
    // The launcher reports a bad cwd as chdir's errno: looked at only then, as with pipes.
    try {
      return await spawnLaunched(request, launcher);
    } catch (error) {
      await checkWorkingDirectory(request.cwd);
      throw error;
    }
  }
  if (pty) {
    await checkWorkingDirectory(request.cwd);
    return spawnWithPty({ ...request, pty });
  }
  try {
    return await spawnWithPipes(request);
  } catch (error) {
    await checkWorkingDirectory(request.cwd);
    throw error;
  }
}
