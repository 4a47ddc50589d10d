/**
 * A real Docker engine for tests. Uses the one DOCKER_HOST (or the default socket) reaches, else
 * starts a private `dockerd` (root only) with its own data root and socket under /tmp, without
 * networking (`--bridge=none`). The test images are made without any registry (images.mjs).
 * Where no engine can be had, it throws saying how to get one: the suites fail loudly.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { importImages } from "./images.mjs";
import { pollUntil } from "./poll.mjs";

const run = promisify(execFile);

export { ALL_IMAGES, DEBIAN_IMAGE, NO_SHELL_IMAGE, SH_ONLY_IMAGE, TEST_IMAGE } from "./images.mjs";

/**
 * @typedef {object} TestDocker
 * @property {string} dockerHost the DOCKER_HOST the executor's docker CLI must see
 * @property {(...args: string[]) => Promise<string>} docker runs the docker CLI against this engine; resolves with its stdout
 * @property {() => Promise<void>} stop
 */

/** @param {string} program @returns {string | undefined} */
export function which(program) {
  try {
    return (
      execFileSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** @param {NodeJS.ProcessEnv} env @returns {Promise<boolean>} */
async function reachable(env) {
  try {
    await run("docker", ["version", "--format", "{{.Server.Version}}"], { env, timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {{ images?: string[] }} [options] the test images the suite uses (default: all)
 * @returns {Promise<TestDocker>}
 */
export async function startDocker(options = {}) {
  if (!which("docker")) {
    throw new Error(
      "Docker executor tests need the docker CLI: apt-get install docker.io (.ci/run does it)",
    );
  }
  let dockerHost = process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock";
  /** @type {import("node:child_process").ChildProcess | undefined} */
  let daemon;
  /** @type {string | undefined} */
  let dir;
  if (!(await reachable({ ...process.env, DOCKER_HOST: dockerHost }))) {
    const dockerd = which("dockerd");
    if (!dockerd || process.getuid?.() !== 0) {
      throw new Error(
        `Docker executor tests need a Docker engine: none answers at ${dockerHost}, and ${
          dockerd
            ? "starting dockerd needs root"
            : "dockerd is not installed (apt-get install docker.io; .ci/run does it)"
        }`,
      );
    }
    dir = mkdtempSync(path.join(tmpdir(), "acp-dockerd-"));
    dockerHost = `unix://${dir}/sock`;
    let said = "";
    daemon = spawn(
      dockerd,
      [
        ...["--data-root", `${dir}/data`, "--exec-root", `${dir}/x`, "--pidfile", `${dir}/pid`],
        ...["-H", dockerHost, "--iptables=false", "--ip-forward=false", "--bridge=none"],
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    daemon.stderr?.on("data", (chunk) => (said = (said + chunk.toString()).slice(-4000)));
    const env = { ...process.env, DOCKER_HOST: dockerHost };
    try {
      await pollUntil(
        () => {
          if (daemon?.exitCode !== null) {
            throw new Error(`dockerd exited: ${said}`);
          }
          return reachable(env);
        },
        30_000,
        "dockerd to answer",
      );
    } catch (error) {
      daemon.kill("SIGKILL");
      throw error;
    }
  }
  const env = { ...process.env, DOCKER_HOST: dockerHost };
  const docker = async (/** @type {string[]} */ ...args) =>
    (await run("docker", args, { env, maxBuffer: 1 << 24 })).stdout;
  await importImages("docker", env, options.images);
  return {
    dockerHost,
    docker,
    stop: async () => {
      if (daemon) {
        const exited = new Promise((resolve) => daemon?.once("exit", resolve));
        daemon.kill("SIGTERM");
        await exited;
      }
      if (dir) {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
