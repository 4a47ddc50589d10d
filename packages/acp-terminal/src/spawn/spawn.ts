import { checkWorkingDirectory } from "./errors.js";
import { spawnWithPipes } from "./pipes.js";
import { spawnWithPty } from "./pty.js";
import type { SpawnedProcess, SpawnRequest } from "./types.js";

/** Starts a command with the backend the request selects, after checking its working directory. */
export async function spawnProcess(request: SpawnRequest): Promise<SpawnedProcess> {
  await checkWorkingDirectory(request.cwd);
  const { pty } = request;
  return pty ? spawnWithPty({ ...request, pty }) : spawnWithPipes(request);
}
