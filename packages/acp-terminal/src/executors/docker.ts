import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { relative, isAbsolute, join } from "node:path";
import { TerminalError } from "../core/errors.js";
import type { ExecutedProcess, Executor, ExecutorSpawnRequest } from "./types.js";
import { RemoteLink, type RemotePlace, type RemoteTimings } from "./remote-link.js";

export interface DockerExecutorOptions extends RemoteTimings {
  /** The docker CLI and its first arguments. Default `docker` (DOCKER_HOST and contexts apply). */
  dockerCommand?: string[];
}

/** `docker exec` for a terminal's session: `-t` runs it in a PTY (the CLI forwards resizes). */
function execCommand(docker: string[], container: string, argv: string[], pty: boolean): string[] {
  return [...docker, "exec", "-i", ...(pty ? ["-t"] : []), container, ...argv];
}

/**
 * Commands in a running container (`docker://CONTAINER`), through the docker CLI: the agent is a
 * `docker exec -i` session (its stdin the lifeline), each terminal another `docker exec`. Paths
 * are the container's.
 */
export class DockerExecutor implements Executor {
  readonly target: string;
  readonly #link: RemoteLink;

  constructor(container: string, options: DockerExecutorOptions = {}) {
    this.target = `docker://${container}`;
    const docker = options.dockerCommand ?? ["docker"];
    this.#link = new RemoteLink(
      {
        target: this.target,
        connection: () => ({
          controlCommand: (argv) => [...docker, "exec", "-i", container, ...argv],
          sessionCommand: (argv, pty) => execCommand(docker, container, argv, pty),
        }),
        remoteCwd: (cwd) => cwd,
      },
      options,
    );
  }

  spawn(request: ExecutorSpawnRequest): Promise<ExecutedProcess> {
    return this.#link.spawn(request);
  }

  dispose(): Promise<void> {
    return this.#link.close();
  }
}

export interface DockerImageOptions extends DockerExecutorOptions {
  /** A directory of this machine mounted in each container (`-v source:target`, read-write). */
  workspace?: { source: string; target?: string | undefined } | undefined;
  /** `docker run --network` (e.g. `none`). Default: the engine's default network. */
  network?: string | undefined;
}

/**
 * One container per session from an image (`docker-image://IMAGE`): `docker run -i --rm` whose
 * main process is the agent, so when the agent ends (the session ended, the host died, the CLI's
 * connection to the engine dropped) the container stops and is removed, with everything in it.
 * A cwd inside the mounted workspace is mapped to where it is mounted.
 */
export class DockerImageExecutor implements Executor {
  readonly target: string;
  readonly #docker: string[];
  readonly #options: DockerImageOptions;
  readonly #sessions = new Map<
    string,
    { link: RemoteLink; connectionId: string; sessionId: string }
  >();
  #disposed = false;

  constructor(
    readonly image: string,
    options: DockerImageOptions = {},
  ) {
    this.target = `docker-image://${image}`;
    this.#docker = options.dockerCommand ?? ["docker"];
    this.#options = options;
  }

  spawn(request: ExecutorSpawnRequest): Promise<ExecutedProcess> {
    const { connectionId, sessionId } = request.session;
    const key = JSON.stringify([connectionId, sessionId]);
    if (this.#disposed) {
      return Promise.reject(
        new TerminalError("disposed", `The executor for ${this.target} was closed`),
      );
    }
    let session = this.#sessions.get(key);
    if (!session) {
      session = { link: new RemoteLink(this.#place(), this.#options), connectionId, sessionId };
      this.#sessions.set(key, session);
    }
    return session.link.spawn(request);
  }

  async endSessions(filter: { connectionId: string; sessionId?: string }): Promise<void> {
    const ending = [...this.#sessions].filter(
      ([, s]) =>
        s.connectionId === filter.connectionId &&
        (filter.sessionId === undefined || s.sessionId === filter.sessionId),
    );
    for (const [key] of ending) {
      this.#sessions.delete(key);
    }
    await Promise.all(ending.map(([, s]) => s.link.close()));
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((s) => s.link.close()));
  }

  /** A container per connection (one per session, anew if the session's was lost). */
  #place(): RemotePlace {
    const docker = this.#docker;
    const { workspace, network } = this.#options;
    const mountTarget = workspace ? (workspace.target ?? workspace.source) : undefined;
    const names: string[] = [];
    return {
      target: this.target,
      connection: () => {
        const name = `acp-terminal-${randomBytes(6).toString("hex")}`;
        names.push(name);
        return {
          controlCommand: (argv) => [
            ...docker,
            ...["run", "-i", "--rm", "--name", name],
            ...(workspace ? ["-v", `${workspace.source}:${mountTarget}`] : []),
            ...(network ? ["--network", network] : []),
            ...["--entrypoint", argv[0] ?? "sh", this.image, ...argv.slice(1)],
          ],
          sessionCommand: (argv, pty) => execCommand(docker, name, argv, pty),
        };
      },
      remoteCwd: (cwd) => {
        if (!workspace || mountTarget === undefined) {
          return cwd;
        }
        const inside = relative(workspace.source, cwd);
        return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside))
          ? join(mountTarget, inside)
          : cwd;
      },
      afterClose: () => removeContainers(docker, names.splice(0)),
    };
  }
}

/** `docker rm -f`: a container normally removed itself (`--rm`) when its agent ended. */
async function removeContainers(docker: string[], names: string[]): Promise<void> {
  if (names.length === 0) {
    return;
  }
  const [file = "docker", ...args] = docker;
  const child = spawn(file, [...args, "rm", "-f", ...names], { stdio: "ignore" });
  child.on("error", () => {}); // no docker CLI: the container could not have been made either
  await once(child, "close").catch(() => undefined);
}
