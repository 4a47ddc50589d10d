/**
 * A real Podman for tests, as root here: storage (vfs) and containers.conf in a directory of its
 * own under /tmp, named by CONTAINERS_STORAGE_CONF and CONTAINERS_CONF. containers.conf sets
 * `default_ulimits = []`: Podman 4.3 otherwise fails every start here with "error setting rlimit
 * type 7: operation not permitted". The test images are imported (images.mjs). Where podman
 * cannot be had, it throws saying how to get it: the suites fail loudly.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { which } from "./dockerd.mjs";
import { importImages } from "./images.mjs";

const run = promisify(execFile);

/**
 * @typedef {object} TestPodman
 * @property {NodeJS.ProcessEnv} env what the executor's podman CLI must see
 * @property {(...args: string[]) => Promise<string>} podman runs podman; resolves with its stdout
 * @property {() => Promise<void>} stop
 */

/**
 * @param {{ images?: string[] }} [options] the test images the suite uses (default: all)
 * @returns {Promise<TestPodman>}
 */
export async function startPodman(options = {}) {
  if (!which("podman")) {
    throw new Error("Podman executor tests need podman: apt-get install podman (.ci/run does it)");
  }
  const dir = mkdtempSync(path.join(tmpdir(), "acp-podman-"));
  writeFileSync(path.join(dir, "containers.conf"), "[containers]\ndefault_ulimits = []\n");
  writeFileSync(
    path.join(dir, "storage.conf"),
    `[storage]\ndriver = "vfs"\ngraphroot = "${dir}/root"\nrunroot = "${dir}/run"\n`,
  );
  const env = {
    ...process.env,
    CONTAINERS_CONF: path.join(dir, "containers.conf"),
    CONTAINERS_STORAGE_CONF: path.join(dir, "storage.conf"),
  };
  await importImages("podman", env, options.images);
  const podman = async (/** @type {string[]} */ ...args) =>
    (await run("podman", args, { env, maxBuffer: 1 << 24 })).stdout;
  return {
    env,
    podman,
    stop: async () => {
      await podman("rm", "-a", "-f", "-t", "0").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
