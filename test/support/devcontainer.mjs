/**
 * A dev container for tests: a workspace folder whose `.devcontainer/devcontainer.json` names a
 * locally imported test image (images.mjs), a `remoteUser` that is not root (uid 1000), a
 * `remoteEnv` variable and a workspace path inside the container that differs from the folder's.
 * The Dev Container CLI (npm @devcontainers/cli, the version .ci/run installs) is found on PATH or
 * where .ci/run puts it; where it cannot be found, it throws saying how to get it.
 */
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { which } from "./dockerd.mjs";

/** The version .ci/run installs (DEVCONTAINER_CLI_VERSION there). */
export const DEVCONTAINER_CLI_VERSION = "0.89.0";
/** Where the container sees the folder. */
export const REMOTE_WORKSPACE = "/workspaces/project";
export const REMOTE_USER = "dev";
export const REMOTE_UID = 1000;
export const REMOTE_ENV = { ACP_DEV_GREETING: "hello from remoteEnv" };

/** The directory holding the `devcontainer` program. */
export function devcontainerBin() {
  const onPath = which("devcontainer");
  if (onPath) {
    return path.dirname(onPath);
  }
  const cache = process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache");
  const bin = path.join(
    cache,
    "acp-terminal-ci",
    `devcontainer-cli-${DEVCONTAINER_CLI_VERSION}`,
    "node_modules",
    ".bin",
  );
  if (existsSync(path.join(bin, "devcontainer"))) {
    return bin;
  }
  throw new Error(
    `Dev container tests need the Dev Container CLI: npm install --prefix ${path.dirname(path.dirname(bin))} @devcontainers/cli@${DEVCONTAINER_CLI_VERSION} (.ci/run does it), or put devcontainer on PATH`,
  );
}

/**
 * A workspace folder for `image`, owned by the remote user's uid as a user's project is when this
 * machine's user and the container's remoteUser share a uid (what the CLI's updateRemoteUserUID
 * is for). The container also mounts this machine's /tmp, where an agent on this machine makes
 * the directories it asks commands to run in.
 * @param {string} image
 * @returns {Promise<{ folder: string, remove: () => Promise<void> }>}
 */
export async function makeDevContainerFolder(image) {
  const folder = await mkdtemp(path.join(tmpdir(), "acp-devcontainer-"));
  await chmod(folder, 0o755);
  await mkdir(path.join(folder, ".devcontainer"));
  if (process.getuid?.() === 0) {
    await chown(folder, REMOTE_UID, REMOTE_UID);
  }
  const config = {
    image,
    remoteUser: REMOTE_USER,
    remoteEnv: REMOTE_ENV,
    workspaceFolder: REMOTE_WORKSPACE,
    workspaceMount: `source=\${localWorkspaceFolder},target=${REMOTE_WORKSPACE},type=bind`,
    mounts: ["source=/tmp,target=/tmp,type=bind"],
    // Else the CLI builds an image (docker build) that gives the remote user this machine's uid.
    updateRemoteUserUID: false,
    runArgs: ["--network", "none"],
  };
  await writeFile(
    path.join(folder, ".devcontainer", "devcontainer.json"),
    JSON.stringify(config, null, 2),
  );
  return { folder, remove: () => rm(folder, { recursive: true, force: true }) };
}
