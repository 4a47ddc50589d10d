/**
 * The types every stage of a terminal shares (spawn, output, terminate, contain, host): the
 * bottom of the dependency graph, importing nothing of this package.
 */

/** Who may use a terminal: a connection and a session within it. */
export interface TerminalOwner {
  readonly connectionId: string;
  readonly sessionId: string;
}

export interface EnvVariable {
  name: string;
  value: string;
}

export interface ExitStatus {
  exitCode: number | null;
  /** Signal name as a string (`"SIGTERM"`), or null. */
  signal: string | null;
}

export type ShellMode = "auto" | "always" | "never";

/**
 * How a terminal's processes are kept from outliving it. Both kill the process group (SIGTERM,
 * grace, SIGKILL) and have a watchdog process SIGKILL every live group if the host dies.
 * `"pid-namespace"`: the command's descendants also live in a PID namespace of the terminal, so
 * those that left the group (`setsid`, double fork) die with it. `"process-group"`: they do not.
 */
export type ContainmentMode = "pid-namespace" | "process-group";

/** The base environment of commands: inherit the host's, start empty, or compute it. */
export type BaseEnvironment =
  "inherit" | "empty" | ((base: NodeJS.ProcessEnv) => Record<string, string>);
