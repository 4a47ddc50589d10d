/**
 * What the spawn stage needs of a launcher (contain/launcher.ts implements it): start a command
 * from a small process of its own, and report its pid, pipes, exit and process tree.
 */
import type { ExitStatus } from "../core/types.js";

export interface LaunchRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** A pipe for stdin (else /dev/null). Pipes only. */
  stdin: boolean;
  /** A PTY slave's path: the command's controlling terminal and stdio. Absent: pipes. */
  tty?: string;
}

/** A command the launcher started. */
export interface LaunchedCommand {
  /** The command's pid, the leader of its own session and process group. */
  readonly pid: number;
  /** Its output pipe (stdout and stderr), opened in this process; pipes only. */
  readonly outputFd: number | undefined;
  /** Its stdin pipe, opened in this process, when asked for. */
  readonly inputFd: number | undefined;
  /** Resolves with how the command itself ended. */
  readonly exited: Promise<ExitStatus>;
  /** Resolves once no process it started is left. */
  readonly emptied: Promise<void>;
  /** True until `emptied`. */
  readonly treeAlive: boolean;
  /**
   * Sends `signal` to every process of its tree outside its own process group (the caller
   * signals the group); SIGKILL goes to all of them.
   */
  signalTree(signal: NodeJS.Signals): void;
}

/** Starts commands for the spawn stage (spawnLaunched). */
export interface CommandLauncher {
  launch(request: LaunchRequest): Promise<LaunchedCommand>;
}
