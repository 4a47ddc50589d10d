import { execFile } from "node:child_process";
import { isAbsolute, join, relative } from "node:path";
import { promisify } from "node:util";
import { TerminalError } from "../core/errors.js";
import { messageOf } from "../core/thrown.js";
import { explainEngineFailure } from "./engine-errors.js";
import { RemoteLink, type RemoteTimings } from "./remote-link.js";
import { placeOf } from "./docker.js";
import type { ExecutedProcess, Executor, ExecutorPlace, ExecutorSpawnRequest } from "./types.js";

const run = promisify(execFile);

export interface DevContainerOptions extends RemoteTimings {
  /** The Dev Container CLI and its first arguments. Default `devcontainer` (npm @devcontainers/cli). */
  devcontainerCommand?: string[];
  /** The docker CLI the dev container runs under. Default `docker`. */
  dockerCommand?: string[];
  /** How long `devcontainer up` may take (it may build the image). Default 10 minutes. */
  upTimeoutMs?: number;
}

/** What `devcontainer up` says of the container (the last line of its stdout, JSON). */
interface UpResult {
  containerId: string;
  remoteUser: string;
  remoteWorkspaceFolder: string;
}

/**
 * Commands in the dev container of a folder (`devcontainer:///WORKSPACE_FOLDER`): `devcontainer up`
 * starts it (or finds it running) and says its id, remoteUser and workspace path; the agent runs
 * under `devcontainer exec`, so it has the user, remoteEnv and the environment the CLI probes;
 * it keeps that environment for every command, and each terminal's session is a `docker exec` as
 * that user (the CLI's own exec costs a Node start per terminal). A cwd inside the folder is
 * mapped to the workspace path in the container.
 */
export class DevContainerExecutor implements Executor {
  readonly target: string;
  readonly #link: RemoteLink;
  #up: Promise<UpResult> | undefined;

  constructor(
    readonly workspaceFolder: string,
    private readonly options: DevContainerOptions = {},
  ) {
    this.target = `devcontainer://${workspaceFolder}`;
    const devcontainer = options.devcontainerCommand ?? ["devcontainer"];
    const docker = options.dockerCommand ?? ["docker"];
    let up: UpResult = { containerId: "", remoteUser: "", remoteWorkspaceFolder: "" };
    this.#link = new RemoteLink(
      {
        target: this.target,
        explain: (said, runError) =>
          runError?.code === "ENOENT"
            ? "the Dev Container CLI is not installed here (npm install -g @devcontainers/cli)"
            : explainEngineFailure("docker", up.containerId, said, runError),
        prepare: async () => {
          up = await this.#containerUp();
        },
        connection: () => ({
          controlCommand: (argv) => [
            ...devcontainer,
            ...["exec", "--workspace-folder", workspaceFolder, ...argv, "keep-env"],
          ],
          sessionCommand: (argv, pty) => [
            ...docker,
            ...["exec", "-i", ...(pty ? ["-t"] : []), "-u", up.remoteUser],
            ...["-w", up.remoteWorkspaceFolder, up.containerId, ...argv],
          ],
        }),
        remoteCwd: (cwd) => {
          const inside = relative(workspaceFolder, cwd);
          return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside))
            ? join(up.remoteWorkspaceFolder, inside)
            : cwd;
        },
      },
      options,
    );
  }

  spawn(request: ExecutorSpawnRequest): Promise<ExecutedProcess> {
    return this.#link.spawn(request);
  }

  place(): ExecutorPlace {
    return placeOf("devcontainer", this.target, this.#link.facts());
  }

  probe(): Promise<void> {
    return this.#link.probe();
  }

  dispose(): Promise<void> {
    return this.#link.close();
  }

  /** `devcontainer up` once per executor (again after a failure). */
  #containerUp(): Promise<UpResult> {
    this.#up ??= this.#runUp().catch((error: unknown) => {
      this.#up = undefined;
      throw error;
    });
    return this.#up;
  }

  async #runUp(): Promise<UpResult> {
    const [file = "devcontainer", ...args] = this.options.devcontainerCommand ?? ["devcontainer"];
    let stdout = "";
    try {
      ({ stdout } = await run(file, [...args, "up", "--workspace-folder", this.workspaceFolder], {
        timeout: this.options.upTimeoutMs ?? 600_000,
        maxBuffer: 1 << 24,
      }));
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- execFile rejects with these fields
      const failed = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
      const said = `${failed.stdout ?? ""}\n${failed.stderr ?? ""}`;
      const message =
        failed.code === "ENOENT"
          ? "the Dev Container CLI is not installed here (npm install -g @devcontainers/cli)"
          : (explainEngineFailure("docker", this.workspaceFolder, said) ??
            (/"message":"([^"]*)"/.exec(said)?.[1] || messageOf(error)));
      throw new TerminalError("spawn_failed", `Cannot connect to ${this.target}: ${message}`, {
        target: this.target,
      });
    }
    const last = stdout.trim().split("\n").at(-1) ?? "";
    let parsed: Partial<UpResult> & { outcome?: string; message?: string } = {};
    try {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- checked field by field below
      parsed = JSON.parse(last) as typeof parsed;
    } catch {
      // Not JSON: reported below.
    }
    if (parsed.outcome !== "success" || !parsed.containerId) {
      throw new TerminalError(
        "spawn_failed",
        `Cannot connect to ${this.target}: devcontainer up failed: ${parsed.message ?? last}`,
        { target: this.target },
      );
    }
    return {
      containerId: parsed.containerId,
      remoteUser: parsed.remoteUser || "root",
      remoteWorkspaceFolder: parsed.remoteWorkspaceFolder || this.workspaceFolder,
    };
  }
}
