/**
 * What a user reads when a container target cannot run commands, against a real Docker engine
 * (test/support/dockerd.mjs): one line naming the cause and the fix, for a missing engine, a
 * stopped container, a wrong name, denied permission on the engine's socket, a missing shell and missing utilities.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DockerExecutor } from "../src/executors/docker.js";
import {
  NO_SHELL_IMAGE,
  SH_ONLY_IMAGE,
  startDocker,
  TEST_IMAGE,
  type TestDocker,
} from "../../../test/support/dockerd.mjs";
import { makeHost, owner, rejection } from "./host-helpers.js";

let engine: TestDocker;
const stopped = `acp-stopped-${randomUUID().slice(0, 8)}`;
const shellless = `acp-no-shell-${randomUUID().slice(0, 8)}`;
const bare = `acp-sh-only-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  engine = await startDocker({ images: [TEST_IMAGE, NO_SHELL_IMAGE, SH_ONLY_IMAGE] });
  await engine.docker("create", "--network", "none", "--name", stopped, TEST_IMAGE, "sleep", "1");
  await engine.docker(
    ...["run", "-d", "--network", "none", "--name", shellless],
    ...[NO_SHELL_IMAGE, "/bin/busybox", "sleep", "100000"],
  );
  // No sleep there: sh waits on a stdin kept open (-i) that nobody writes.
  await engine.docker(
    ...["run", "-d", "-i", "--network", "none", "--name", bare],
    ...[SH_ONLY_IMAGE, "/bin/sh", "-c", "read _"],
  );
}, 120_000);
afterAll(async () => {
  await engine?.docker("rm", "-f", stopped, shellless, bare).catch(() => undefined);
  await engine?.stop();
}, 60_000);

/** The message of the first create through `docker` (its CLI and first arguments) into `container`. */
async function firstCreate(container: string, docker: string[]): Promise<string> {
  const host = makeHost({ on: new DockerExecutor(container, { dockerCommand: docker }) });
  const error = await rejection(host.create(owner, { command: "true" }));
  expect(error.code).toBe("spawn_failed");
  expect(error.message).not.toContain("\n");
  return error.message;
}

describe("container targets that cannot run commands say why and what to do, in one line", () => {
  it("a missing engine: no CLI, or no engine at the socket", async () => {
    expect(await firstCreate("box", ["/nonexistent/docker"])).toBe(
      "Cannot connect to docker://box: the docker CLI is not installed here (install Docker, or put docker on PATH)",
    );
    expect(await firstCreate("box", ["docker", "-H", "unix:///nonexistent/docker.sock"])).toBe(
      "Cannot connect to docker://box: no Docker engine answers at unix:///nonexistent/docker.sock (start it: sudo systemctl start docker, or set DOCKER_HOST to one that runs)",
    );
  });

  it("a stopped container and a wrong name", async () => {
    const docker = ["docker", "-H", engine.dockerHost];
    expect(await firstCreate(stopped, docker)).toBe(
      `Cannot connect to docker://${stopped}: container ${stopped} is not running (start it: docker start ${stopped})`,
    );
    expect(await firstCreate("no-such-box", docker)).toBe(
      "Cannot connect to docker://no-such-box: no container named no-such-box (docker ps -a lists them; for a container per session from an image, use docker-image://IMAGE)",
    );
  });

  it("permission denied on the engine's socket", async () => {
    // The CLI as nobody: the engine's socket is root's.
    const asNobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"];
    const message = await firstCreate("box", [...asNobody, "docker", "-H", engine.dockerHost]);
    expect(message).toBe(
      `Cannot connect to docker://box: permission denied on the Docker socket ${engine.dockerHost} (add your user to the docker group, or run docker rootless and point DOCKER_HOST at its socket)`,
    );
  });

  it("a container without sh", async () => {
    expect(await firstCreate(shellless, ["docker", "-H", engine.dockerHost])).toBe(
      `Cannot connect to docker://${shellless}: ${shellless} has no sh: acp-terminal's remote helper needs a POSIX sh (busybox, Alpine, Debian-slim and most images have /bin/sh; distroless and scratch images do not)`,
    );
  });

  it("a container with sh but without the utilities the helper needs: what it lacks, by name", async () => {
    expect(await firstCreate(bare, ["docker", "-H", engine.dockerHost])).toBe(
      `Cannot connect to docker://${bare}: this target has sh but lacks mkfifo, cat, sleep, grep, rm, readlink, which acp-terminal's remote helper needs (busybox or coreutils, grep and a mounted /proc give them all)`,
    );
  });
});
