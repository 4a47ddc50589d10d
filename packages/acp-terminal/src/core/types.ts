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
 * How a terminal's processes are kept from outliving it. All kill the process group (SIGTERM,
 * grace, SIGKILL) and have a watchdog SIGKILL what is left if the host dies.
 * `"process-tree"`: the command runs under a subreaper relay of the host's launcher, so those of
 * its descendants that left the group (`setsid`, double fork, `env -i`) are found and killed too,
 * with the machine's own pids. `"pid-namespace"`: the terminal has a PID namespace of its own,
 * which holds them (its commands see namespace pids). `"process-group"`: the group only; what
 * leaves it outlives the terminal.
 */
export type ContainmentMode = "process-tree" | "pid-namespace" | "process-group";

/** The base environment of commands: inherit the host's, start empty, or compute it. */
export type BaseEnvironment =
  "inherit" | "empty" | ((base: NodeJS.ProcessEnv) => Record<string, string>);
