import { isAbsolute } from "node:path";
import { TerminalError } from "../core/errors.js";
import { DockerExecutor, DockerImageExecutor } from "./docker.js";
import { localExecutor } from "./local.js";
import { SshExecutor } from "./ssh.js";
import type { Executor } from "./types.js";

/** What `on` may say, for option errors. */
export const EXECUTOR_FORMS =
  '"local", "ssh://[user@]host[:port]", "docker://CONTAINER" or "docker-image://IMAGE[?workspace=DIR[:MOUNT]][&network=NAME]"';

/** A host name, user or container: no leading dash (it would be read as an option), no spaces. */
const NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.:%@/[\]-]*$/;

function invalid(field: string, received: unknown, why?: string): TerminalError {
  const error = TerminalError.invalidParams(field, EXECUTOR_FORMS, received);
  return why ? new TerminalError("invalid_params", `${error.message}: ${why}`, error.data) : error;
}

/**
 * The executor an `on` string names. Ssh and docker executors made here belong to the host that
 * asked (it disposes them); `local` is shared.
 */
export function executorFor(on: string, field = "options.on"): Executor {
  if (on === "local") {
    return localExecutor;
  }
  const scheme = /^([a-z-]+):\/\/(.*)$/.exec(on);
  const [, kind, rest = ""] = scheme ?? [];
  if (kind === "ssh") {
    const match = /^(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/.exec(rest);
    const [, user, host = "", port] = match ?? [];
    const portNumber = port === undefined ? undefined : Number(port);
    if (!match || !NAME.test(host) || (user !== undefined && !NAME.test(user))) {
      throw invalid(field, on);
    }
    if (portNumber !== undefined && (portNumber < 1 || portNumber > 65535)) {
      throw invalid(field, on, `port ${port} is not between 1 and 65535`);
    }
    return new SshExecutor({ host: host.replace(/^\[(.*)\]$/, "$1"), user, port: portNumber });
  }
  if (kind === "docker") {
    if (!NAME.test(rest)) {
      throw invalid(field, on);
    }
    return new DockerExecutor(rest);
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
    return new DockerImageExecutor(image, {
      ...(workspace !== undefined ? { workspace: { source, target: target || undefined } } : {}),
      network: params.get("network") ?? undefined,
    });
  }
  throw invalid(field, on);
}
