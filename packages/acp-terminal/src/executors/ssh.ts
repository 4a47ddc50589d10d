import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { placeOf } from "./docker.js";
import type { ExecutedProcess, Executor, ExecutorPlace, ExecutorSpawnRequest } from "./types.js";
import { RemoteLink, type RemoteTimings } from "./remote-link.js";
import { shellQuote } from "./remote-spec.js";

export interface SshDestination {
  host: string;
  user?: string | undefined;
  port?: number | undefined;
}

export interface SshExecutorOptions extends RemoteTimings {
  /**
   * The ssh program and its first arguments. Default: `ACP_TERMINAL_SSH_COMMAND` split on
   * whitespace (like GIT_SSH_COMMAND, e.g. `ssh -F ./ssh_config`), else `ssh`.
   */
  sshCommand?: string[];
}

/** sshd's default MaxSessions: sessions one connection may carry (the agent's included). */
const DEFAULT_MAX_SESSIONS = 10;

/** Options for every ssh this executor runs: no prompt can be answered, warnings stay out of output. */
const COMMON = ["-o", "BatchMode=yes", "-o", "LogLevel=ERROR"];

/**
 * Commands on another machine through the system's OpenSSH client, so the destination resolves
 * as `ssh` resolves it (~/.ssh/config: HostName, Port, User, IdentityFile, ProxyJump, keys and
 * agent). One connection: a master (`-M`, its socket in a private directory here) whose own
 * session is the remote agent; every terminal is a session multiplexed over it (`-S`), so it
 * costs no handshake. A terminal's session never opens a connection of its own: with the master
 * gone, `ProxyCommand=false` makes it fail at once.
 */
export class SshExecutor implements Executor {
  readonly target: string;
  readonly #link: RemoteLink;
  /** The masters' sockets: made with the first connection, removed when the executor closes. */
  #controlDir: string | undefined;

  constructor(destination: SshDestination, options: SshExecutorOptions = {}) {
    const { host, user, port } = destination;
    this.target = `ssh://${user ? `${user}@` : ""}${host}${port ? `:${port}` : ""}`;
    const ssh = options.sshCommand ?? sshCommandFromEnvironment();
    // A socket of its own for each connection: a master that died may leave its socket behind.
    let connections = 0;
    const to = [...(port ? ["-p", String(port)] : []), ...(user ? ["-l", user] : []), host, "--"];
    const remote = (argv: string[]): string => `exec ${argv.map(shellQuote).join(" ")}`;
    this.#link = new RemoteLink(
      {
        target: this.target,
        connection: () => {
          this.#controlDir ??= mkdtempSync(join(tmpdir(), "acp-ssh-"));
          const socket = join(this.#controlDir, `m${++connections}`);
          return {
            controlCommand: (argv) => [
              ...[...ssh, "-M", "-S", socket, "-o", "ControlPersist=no", ...COMMON, "-T"],
              ...["-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3"],
              ...["-o", "ConnectTimeout=15", ...to, remote(argv)],
            ],
            sessionCommand: (argv, pty) => [
              ...[...ssh, "-S", socket, "-o", "ControlMaster=no", "-o", "ProxyCommand=false"],
              ...[...COMMON, pty ? "-tt" : "-T", ...to, remote(argv)],
            ],
          };
        },
        remoteCwd: (cwd) => cwd,
        afterClose: async () => {
          if (this.#controlDir !== undefined) {
            rmSync(this.#controlDir, { recursive: true, force: true });
          }
        },
      },
      { maxSessions: DEFAULT_MAX_SESSIONS, ...options },
    );
  }

  spawn(request: ExecutorSpawnRequest): Promise<ExecutedProcess> {
    return this.#link.spawn(request);
  }

  place(): ExecutorPlace {
    return placeOf("ssh", this.target, this.#link.facts());
  }

  probe(): Promise<void> {
    return this.#link.probe();
  }

  dispose(): Promise<void> {
    return this.#link.close();
  }
}

function sshCommandFromEnvironment(): string[] {
  const words = (process.env.ACP_TERMINAL_SSH_COMMAND ?? "").split(/\s+/).filter(Boolean);
  return words.length > 0 ? words : ["ssh"];
}
