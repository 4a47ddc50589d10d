import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { relative, isAbsolute, join } from "node:path";
import { TerminalError } from "../core/errors.js";
import type { ExecutedProcess, Executor, ExecutorPlace, ExecutorSpawnRequest } from "./types.js";
import type { RemotePlaceFacts } from "./remote-connection.js";
import { explainEngineFailure } from "./engine-errors.js";
import { RemoteLink, type RemotePlace, type RemoteTimings } from "./remote-link.js";
import type { ContainerEngine, WorkspaceMount } from "./types.js";

export interface DockerExecutorOptions extends RemoteTimings {
  /** `docker` (default) or `podman`: the same executor through the other CLI, named in targets. */
  engine?: ContainerEngine;
  /**
   * The CLI and its first arguments. Default: the engine's name (DOCKER_HOST and contexts apply;
   * for podman CONTAINER_HOST, CONTAINERS_CONF).
   */
  dockerCommand?: string[];
}

/** `docker exec` for a terminal's session: `-t` runs it in a PTY (the CLI forwards resizes). */
function execCommand(docker: string[], container: string, argv: string[], pty: boolean): string[] {
  return [...docker, "exec", "-i", ...(pty ? ["-t"] : []), container, ...argv];
}

/**
 * Commands in a running container (`docker://CONTAINER`, `podman://CONTAINER`), through the
 * engine's CLI: the agent is an `exec -i` session (its stdin the lifeline), each terminal another
 * `exec`. Paths are the container's.
 */
export class DockerExecutor implements Executor {
  readonly target: string;
  readonly #link: RemoteLink;
  readonly #kind: ContainerEngine;

  constructor(container: string, options: DockerExecutorOptions = {}) {
    const engine = options.engine ?? "docker";
    this.#kind = engine;
    this.target = `${engine}://${container}`;
    const docker = options.dockerCommand ?? [engine];
    this.#link = new RemoteLink(
      {
        target: this.target,
        explain: (said, runError) => explainEngineFailure(engine, container, said, runError),
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

  place(): ExecutorPlace {
    return placeOf(this.#kind, this.target, this.#link.facts());
  }

  probe(): Promise<void> {
    return this.#link.probe();
  }

  dispose(): Promise<void> {
    return this.#link.close();
  }
}

/** An executor's place: its kind and target, with what a connection found out. */
export function placeOf(
  kind: ExecutorPlace["kind"],
  target: string,
  facts: RemotePlaceFacts | undefined,
): ExecutorPlace {
  return { kind, target, ...(facts ? { os: facts.os, shell: facts.shell } : {}) };
}

export interface DockerImageOptions extends DockerExecutorOptions {
  /** A directory of this machine mounted in each container (`-v source:target[:ro][,z]`). */
  workspace?: WorkspaceMount | undefined;
  /** `docker run --network` (e.g. `none`). Default: the engine's default network. */
  network?: string | undefined;
}

/**
 * One container per session from an image (`docker-image://IMAGE`, `podman-image://IMAGE`): `docker run -i --rm` whose
 * main process is the agent, so when the agent ends (the session ended, the host died, the CLI's
 * connection to the engine dropped) the container stops and is removed, with everything in it.
 * A cwd inside the mounted workspace is mapped to where it is mounted.
 */
export class DockerImageExecutor implements Executor {
  readonly target: string;
  readonly #engine: ContainerEngine;
  #facts: RemotePlaceFacts | undefined;
  readonly #docker: string[];
  readonly #options: DockerImageOptions;
  readonly #sessions = new Map<
    string,
    { link: RemoteLink; connectionId: string; sessionId: string }
  >();
  /**
   * The container `probe` started to learn the image's OS and shell, kept for the first session
   * that spawns: a client probes before `initialize`, and its session's container is then the one
   * that was probed rather than a second one.
   */
  #probed: RemoteLink | undefined;
  #disposed = false;

  constructor(
    readonly image: string,
    options: DockerImageOptions = {},
  ) {
    this.#engine = options.engine ?? "docker";
    this.target = `${this.#engine}-image://${image}`;
    this.#docker = options.dockerCommand ?? [this.#engine];
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
      const link = this.#probed ?? new RemoteLink(this.#place(), this.#options);
      this.#probed = undefined;
      session = { link, connectionId, sessionId };
      void link.probe().then(() => (this.#facts ??= link.facts()));
      this.#sessions.set(key, session);
    }
    return session.link.spawn(request);
  }

  place(): ExecutorPlace {
    return placeOf(`${this.#engine}-image`, this.target, this.#facts);
  }

  /**
   * Starts the next session's container now (an image's OS and shell are the same in every
   * session's); it waits, open, for the first session that spawns.
   */
  async probe(): Promise<void> {
    if (this.#facts !== undefined || this.#disposed) {
      return;
    }
    const link = (this.#probed ??= new RemoteLink(this.#place(), this.#options));
    await link.probe();
    this.#facts ??= link.facts();
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
    const all = [...this.#sessions.values()].map((s) => s.link);
    this.#sessions.clear();
    if (this.#probed) {
      all.push(this.#probed);
      this.#probed = undefined;
    }
    await Promise.all(all.map((link) => link.close()));
  }

  /** A container per connection (one per session, anew if the session's was lost). */
  #place(): RemotePlace {
    const docker = this.#docker;
    const { workspace, network } = this.#options;
    const mountTarget = workspace ? (workspace.target ?? workspace.source) : undefined;
    const names: string[] = [];
    return {
      target: this.target,
      explain: (said, runError) => explainEngineFailure(this.#engine, this.image, said, runError),
      connection: () => {
        const name = `acp-terminal-${randomBytes(6).toString("hex")}`;
        names.push(name);
        return {
          controlCommand: (argv) => [
            ...docker,
            ...["run", "-i", "--rm", "--name", name],
            ...(workspace ? ["-v", volume(workspace, mountTarget)] : []),
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

/** `-v SOURCE:TARGET[:ro|rw][,z|Z]`: every option the target named, none dropped. */
function volume(workspace: WorkspaceMount, target: string | undefined): string {
  const options = [
    ...(workspace.readOnly === undefined ? [] : [workspace.readOnly ? "ro" : "rw"]),
    ...(workspace.relabel ? [workspace.relabel] : []),
  ];
  return `${workspace.source}:${target}${options.length > 0 ? `:${options.join(",")}` : ""}`;
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
