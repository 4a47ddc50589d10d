import { type } from "node:os";
import { resolveShell } from "../spawn/command.js";
import { spawnProcess } from "../spawn/spawn.js";
import type { SpawnedProcess } from "../spawn/types.js";
import { processGroupAlive, signalProcessGroup, terminateProcessGroup } from "../terminate/kill.js";
import type { ExecutedProcess, Executor, ProcessGroup } from "./types.js";

/** This machine: today's spawn path, unchanged (what a host without `on` uses). */
export const localExecutor: Executor = {
  target: "local",
  place: () => ({
    kind: "local",
    target: "local",
    os: type(),
    shell: resolveShell(process.env.PATH),
  }),
  spawn: (request) => spawnProcess(request),
  dispose: () => Promise.resolve(),
};

/** The group a local process leads: signalled here with `process.kill(-pid)` (terminate/kill.ts). */
function localProcessGroup(process: SpawnedProcess): ProcessGroup {
  return {
    signal: (signal) => {
      signalProcessGroup(process.pid, signal, !process.hasExited());
    },
    alive: () => processGroupAlive(process.pid),
    terminate: (options) => terminateProcessGroup(process, options),
  };
}

/** The process group a terminal's kill, signal and release go to. */
export function processGroupOf(process: ExecutedProcess): ProcessGroup {
  return process.group ?? localProcessGroup(process);
}
