import type { ContainerEngine } from "./types.js";

/**
 * What a container engine's CLI said when the control session failed, as one line that names
 * the cause and the fix (undefined when it is none of these): the CLI or the engine missing,
 * permission denied on its socket, no such container or image, a stopped container, no `sh`.
 */
export function explainEngineFailure(
  engine: ContainerEngine,
  name: string,
  said: string,
  runError?: NodeJS.ErrnoException,
): string | undefined {
  const Engine = engine === "docker" ? "Docker" : "Podman";
  if (runError?.code === "ENOENT") {
    return `the ${engine} CLI is not installed here (install ${Engine}, or put ${engine} on PATH)`;
  }
  const permission = /permission denied\b[^\n]*?\bat (unix:\/\/\S+?):?(?:\s|$)/i.exec(said);
  if (permission || /permission denied while trying to connect/i.test(said)) {
    return `permission denied on the ${Engine} socket${permission ? ` ${permission[1]}` : ""} (add your user to the ${engine} group, or run ${engine} rootless and point ${engine === "docker" ? "DOCKER_HOST" : "CONTAINER_HOST"} at its socket)`;
  }
  const unreachable =
    /Cannot connect to the Docker daemon at (\S+?)\.? Is/.exec(said) ??
    /(?:unable to connect to Podman socket|Cannot connect to Podman)[^\n]*?(unix:\/\/\S+|$)/im.exec(
      said,
    );
  if (unreachable) {
    const at = unreachable[1] ? ` at ${unreachable[1]}` : "";
    return `no ${Engine} engine answers${at} (start it${engine === "docker" ? ": sudo systemctl start docker" : ""}, or set ${engine === "docker" ? "DOCKER_HOST" : "CONTAINER_HOST"} to one that runs)`;
  }
  if (
    /No such container|no container with (?:name or ID|ID or name) "?[^"\n]*"? found/i.test(said)
  ) {
    return `no container named ${name} (${engine} ps -a lists them; for a container per session from an image, use ${engine}-image://IMAGE)`;
  }
  if (/is not running|container state improper|is paused|is restarting/i.test(said)) {
    return `container ${name} is not running (start it: ${engine} start ${name})`;
  }
  if (
    /Unable to find image|image not known|No such image|pull access denied|manifest unknown/i.test(
      said,
    )
  ) {
    return `no image ${name} here (${engine} images lists them: pull or build it first)`;
  }
  if (
    /executable file not found|"sh": executable|`sh` not found|sh: not found|no such file or directory: OCI runtime attempted/i.test(
      said,
    )
  ) {
    return `${name} has no sh: acp-terminal's remote helper needs a POSIX sh (busybox, Alpine, Debian-slim and most images have /bin/sh; distroless and scratch images do not)`;
  }
  return undefined;
}
