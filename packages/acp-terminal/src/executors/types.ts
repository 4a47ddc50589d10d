/**
 * The executor seam: where a TerminalHost's commands run. The host decides what to run (plan,
 * cwd, env, limits, approval) and keeps everything it knows about a terminal; an executor only
 * starts the command somewhere and hands back a `SpawnedProcess` (the same contract the local
 * backends give), plus a `ProcessGroup` when the command's group does not live on this machine.
 */
import type { SpawnedProcess, SpawnRequest } from "../spawn/types.js";

/** What an executor is asked to start: the local spawn request plus what a remote side needs. */
export interface ExecutorSpawnRequest extends SpawnRequest {
  /**
   * The command line runs through a shell (`file` is this machine's shell): another machine picks
   * its own (`bash` on its PATH, else `/bin/sh`).
   */
  shell: boolean;
  /**
   * The variables the request set, with the pager defaults, without this machine's environment:
   * another machine puts them on top of its own environment (`env` is this machine's merge).
   */
  requestEnv: Record<string, string>;
  /** The terminal's session (`connectionId` and `sessionId`): a container per session keys on it. */
  session: { connectionId: string; sessionId: string };
}

/**
 * The process group of a command, wherever it lives. Local groups are signalled with
 * `process.kill(-pgid)`; a remote group through its executor's connection.
 */
export interface ProcessGroup {
  /** Sends `signal` to the group (the leader alone when the group is gone but it runs). Throws if refused. */
  signal(signal: NodeJS.Signals): void;
  /** True while any member is left; asked when the leader has exited. */
  alive(): boolean;
  /** `signal`, one grace for the whole group, SIGKILL for what is left (see terminate/kill.ts). */
  terminate(options: { signal: NodeJS.Signals; graceMs: number }): Promise<void>;
  /** The terminal was released: a remote side forgets it and kills what still carries its mark. */
  release?(): void;
}

/** A started command: a remote one carries its group (absent: a local group led by `pid`). */
export type ExecutedProcess = SpawnedProcess & { readonly group?: ProcessGroup };

/** Where commands run, as the capability tells the agent (`_meta["acp-terminal"].executor`). */
export interface ExecutorPlace {
  kind: "local" | "ssh" | "docker" | "podman" | "docker-image" | "podman-image" | "devcontainer";
  /** As the user wrote it: `ssh://box`, `docker://app`, `local`. */
  target: string;
  /** `uname -s` there (`Linux`, `Darwin`); absent until a connection said it. */
  os?: string | undefined;
  /** What a shell command runs in there: `bash` on PATH, else `/bin/sh`; absent until known. */
  shell?: string | undefined;
}

export interface Executor {
  /** Where commands run, as the user wrote it (`ssh://box`, `docker://app`); `local` here. */
  readonly target: string;
  /** Where commands run, with what a connection found out (OS, shell) once one opened. */
  place(): ExecutorPlace;
  /** Opens a connection (if none is) so that `place()` has the OS and shell; never rejects. */
  probe?(): Promise<void>;
  /** Starts a command; rejects with a TerminalError ("spawn_failed") saying what and why. */
  spawn(request: ExecutorSpawnRequest): Promise<ExecutedProcess>;
  /** Every terminal of these sessions was released: end what was made for them (a container). */
  endSessions?(filter: { connectionId: string; sessionId?: string }): Promise<void>;
  /** Ends connections and containers; terminals still running are killed there. Idempotent. */
  dispose(): Promise<void>;
}

/** The container engines: the same executor, another CLI. */
export type ContainerEngine = "docker" | "podman";

/** A directory of this machine mounted in each container of an image executor. */
export interface WorkspaceMount {
  source: string;
  target?: string | undefined;
  /** Mounted read-only (`:ro`); read-write otherwise. */
  readOnly?: boolean | undefined;
  /** The SELinux relabel `z` (shared) or `Z` (private), passed to the engine as given. */
  relabel?: "z" | "Z" | undefined;
}
