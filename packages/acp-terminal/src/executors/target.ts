import { isAbsolute } from "node:path";
import { TerminalError } from "../core/errors.js";
import { messageOf } from "../core/thrown.js";
import { DevContainerExecutor } from "./devcontainer.js";
import { DockerExecutor, DockerImageExecutor } from "./docker.js";
import { localExecutor } from "./local.js";
import { SshExecutor } from "./ssh.js";
import type { Executor, ExecutorPlace, WorkspaceMount } from "./types.js";

export type { ContainerEngine, WorkspaceMount } from "./types.js";

/** What `on` may say, for option errors. */
export const EXECUTOR_FORMS =
  '"local", "ssh://[user@]host[:port]", "docker://CONTAINER", "docker-image://IMAGE[?workspace=DIR[:MOUNT[:ro|rw][,z|Z]]][&network=NAME]", the same with podman:// and podman-image://, or "devcontainer:///WORKSPACE_FOLDER"';

/** Where an `on` string says commands run. */
export type ExecutorTarget =
  | { kind: "local" }
  | { kind: "ssh"; host: string; user?: string | undefined; port?: number | undefined }
  | { kind: "docker" | "podman"; container: string }
  | {
      kind: "docker-image" | "podman-image";
      image: string;
      workspace?: WorkspaceMount | undefined;
      network?: string | undefined;
    }
  | { kind: "devcontainer"; workspaceFolder: string };

/** A host name, user, container or image: no leading dash (it would be read as an option), no spaces. */
const NAME = /^[A-Za-z0-9_.:][A-Za-z0-9_.:%@/[\]-]*$/;

function invalid(field: string, received: unknown, why?: string): TerminalError {
  const error = TerminalError.invalidParams(field, EXECUTOR_FORMS, received);
  return why ? new TerminalError("invalid_params", `${error.message}: ${why}`, error.data) : error;
}

/** Parses `on`; a wrong one is a TerminalError ("invalid_params") naming `field`. */
export function parseExecutorTarget(on: string, field = "options.on"): ExecutorTarget {
  if (on === "local") {
    return { kind: "local" };
  }
  const [, kind, rest = ""] = /^([a-z-]+):\/\/(.*)$/.exec(on) ?? [];
  if (kind === "ssh") {
    const match = /^(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/.exec(rest);
    const [, user, bracketed = "", port] = match ?? [];
    const host = bracketed.replace(/^\[(.*)\]$/, "$1"); // an IPv6 address
    if (!match || !NAME.test(host) || (user !== undefined && !NAME.test(user))) {
      throw invalid(field, on);
    }
    const portNumber = port === undefined ? undefined : Number(port);
    if (portNumber !== undefined && (portNumber < 1 || portNumber > 65535)) {
      throw invalid(field, on, `port ${port} is not between 1 and 65535`);
    }
    return { kind, host, user, port: portNumber };
  }
  if (kind === "docker" || kind === "podman") {
    if (!NAME.test(rest)) {
      throw invalid(field, on);
    }
    return { kind, container: rest };
  }
  if (kind === "docker-image" || kind === "podman-image") {
    return { kind, ...parseImageTarget(rest, on, field) };
  }
  if (kind === "devcontainer") {
    const folder = decodeURIComponent(rest);
    if (!isAbsolute(folder) || folder.includes("\0")) {
      throw invalid(field, on, "the workspace folder must be an absolute path");
    }
    return { kind, workspaceFolder: folder };
  }
  throw invalid(field, on);
}

/** `IMAGE?workspace=DIR[:MOUNT[:OPTIONS]]&network=NAME`: each parameter once, every option honoured. */
function parseImageTarget(
  rest: string,
  on: string,
  field: string,
): { image: string; workspace?: WorkspaceMount | undefined; network?: string | undefined } {
  const [image = "", query = ""] = rest.split("?", 2);
  if (!NAME.test(image)) {
    throw invalid(field, on);
  }
  const params = new URLSearchParams(query);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (key !== "workspace" && key !== "network") {
      throw invalid(field, on, `unknown parameter ${key}`);
    }
    if (seen.has(key)) {
      throw invalid(field, on, `${key} is given twice`);
    }
    seen.add(key);
  }
  const network = params.get("network") ?? undefined;
  if (network !== undefined && !NAME.test(network)) {
    throw invalid(field, on, `network ${JSON.stringify(network)} is not a network name`);
  }
  const workspace = params.get("workspace") ?? undefined;
  return {
    image,
    workspace: workspace === undefined ? undefined : parseWorkspace(workspace, on, field),
    network,
  };
}

/** `DIR[:MOUNT[:OPTIONS]]`, OPTIONS a comma list of `ro` or `rw` and `z` or `Z`. */
function parseWorkspace(text: string, on: string, field: string): WorkspaceMount {
  const [source = "", target, options, ...extra] = text.split(":");
  if (extra.length > 0) {
    throw invalid(
      field,
      on,
      "the workspace is DIR[:MOUNT[:OPTIONS]] (a path with ':' cannot be mounted)",
    );
  }
  if (!isAbsolute(source) || (target && !isAbsolute(target))) {
    throw invalid(field, on, "workspace paths must be absolute");
  }
  const mount: WorkspaceMount = { source, target: target || undefined };
  for (const option of options === undefined ? [] : options.split(",")) {
    if ((option === "ro" || option === "rw") && mount.readOnly === undefined) {
      mount.readOnly = option === "ro";
    } else if ((option === "z" || option === "Z") && mount.relabel === undefined) {
      mount.relabel = option;
    } else {
      throw invalid(
        field,
        on,
        `mount option ${JSON.stringify(option)} is not supported (ro or rw, and z or Z, each once)`,
      );
    }
  }
  return mount;
}

/** Why `on` is wrong, or undefined when it names a place (for a CLI's usage errors). */
export function checkExecutorTarget(on: string): string | undefined {
  try {
    parseExecutorTarget(on, "on");
    return undefined;
  } catch (error) {
    return messageOf(error).replace(/^Invalid on: /, "");
  }
}

/**
 * The executor an `on` string names. Ssh and docker executors made here belong to the host that
 * asked (it disposes them); `local` is shared.
 */
export function executorFor(on: string, field = "options.on"): Executor {
  const target = parseExecutorTarget(on, field);
  switch (target.kind) {
    case "local":
      return localExecutor;
    case "ssh":
      return new SshExecutor(target);
    case "docker":
    case "podman":
      return new DockerExecutor(target.container, { engine: target.kind });
    case "docker-image":
    case "podman-image":
      return new DockerImageExecutor(target.image, {
        engine: target.kind === "podman-image" ? "podman" : "docker",
        workspace: target.workspace,
        network: target.network,
      });
    case "devcontainer":
      return new DevContainerExecutor(target.workspaceFolder);
  }
}

/**
 * Where `on` says commands run, as far as it is known without connecting: here, this machine's OS
 * and shell; elsewhere the kind and target (the OS and shell there are what a connection finds
 * out: a host's `executor` once `probeExecutor` ran). An executor makes nothing until it spawns or
 * probes, so the one made here to ask is simply dropped.
 */
export function placeBeforeConnecting(on: string): ExecutorPlace {
  return executorFor(on, "on").place();
}
