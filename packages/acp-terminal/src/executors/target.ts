import { isAbsolute } from "node:path";
import { TerminalError } from "../core/errors.js";
import { messageOf } from "../core/thrown.js";
import { DockerExecutor, DockerImageExecutor } from "./docker.js";
import { localExecutor } from "./local.js";
import { SshExecutor } from "./ssh.js";
import type { Executor } from "./types.js";

/** What `on` may say, for option errors. */
export const EXECUTOR_FORMS =
  '"local", "ssh://[user@]host[:port]", "docker://CONTAINER" or "docker-image://IMAGE[?workspace=DIR[:MOUNT]][&network=NAME]"';

/** Where an `on` string says commands run. */
export type ExecutorTarget =
  | { kind: "local" }
  | { kind: "ssh"; host: string; user?: string | undefined; port?: number | undefined }
  | { kind: "docker"; container: string }
  | {
      kind: "docker-image";
      image: string;
      workspace?: { source: string; target?: string | undefined } | undefined;
      network?: string | undefined;
    };

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
  if (kind === "docker") {
    if (!NAME.test(rest)) {
      throw invalid(field, on);
    }
    return { kind, container: rest };
  }
  if (kind === "docker-image") {
    const [image = "", query = ""] = rest.split("?", 2);
    if (!NAME.test(image)) {
      throw invalid(field, on);
    }
    const params = new URLSearchParams(query);
    for (const key of params.keys()) {
      if (key !== "workspace" && key !== "network") {
        throw invalid(field, on, `unknown parameter ${key}`);
      }
    }
    const workspace = params.get("workspace") ?? undefined;
    const [source = "", target] = workspace?.split(":", 2) ?? [];
    if (workspace !== undefined && (!isAbsolute(source) || (target && !isAbsolute(target)))) {
      throw invalid(field, on, "workspace paths must be absolute");
    }
    return {
      kind,
      image,
      workspace: workspace === undefined ? undefined : { source, target: target || undefined },
      network: params.get("network") ?? undefined,
    };
  }
  throw invalid(field, on);
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
      return new DockerExecutor(target.container);
    case "docker-image":
      return new DockerImageExecutor(target.image, {
        workspace: target.workspace,
        network: target.network,
      });
  }
}
