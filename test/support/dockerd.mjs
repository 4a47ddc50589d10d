/**
 * A real Docker engine for tests. Uses the one DOCKER_HOST (or the default socket) reaches, else
 * starts a private `dockerd` (root only) with its own data root and socket under /tmp, without
 * networking (`--bridge=none`). The test image is made without any registry: `docker import` of a
 * root filesystem holding the installed static busybox and this machine's perl (its binary, the
 * libraries ldd names and perl-base), which the executor's remote helper needs. Where no engine
 * can be had, it throws saying how to get one: the suites fail loudly.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { pollUntil } from "./poll.mjs";

const run = promisify(execFile);

export const TEST_IMAGE = "acp-terminal-test:busybox-perl";

/**
 * @typedef {object} TestDocker
 * @property {string} dockerHost the DOCKER_HOST the executor's docker CLI must see
 * @property {(...args: string[]) => Promise<string>} docker runs the docker CLI against this engine; resolves with its stdout
 * @property {() => Promise<void>} stop
 */

const PERL_BASE = "/usr/lib/x86_64-linux-gnu/perl-base";

/** @param {string} program @returns {string | undefined} */
function which(program) {
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

/** busybox (static) with every applet linked, perl with what it loads, /tmp, a passwd. */
/** @param {string} dir */
function buildRootfs(dir) {
  const busybox = ["/bin/busybox", "/usr/bin/busybox"].find((file) => existsSync(file));
  const perl = which("perl");
  if (!busybox || !perl || !existsSync(PERL_BASE)) {
    throw new Error(
      "The Docker test image needs a static busybox and perl-base: apt-get install busybox-static (.ci/run does it)",
    );
  }
  for (const sub of ["bin", "tmp", "etc", "root", "proc", "dev", "sys", "usr/bin"]) {
    mkdirSync(path.join(dir, sub), { recursive: true });
  }
  cpSync(busybox, path.join(dir, "bin/busybox"));
  const applets = execFileSync(busybox, ["--list"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  for (const applet of applets) {
    if (applet !== "busybox") {
      symlinkSync("busybox", path.join(dir, "bin", applet));
    }
  }
  cpSync(perl, path.join(dir, "usr/bin/perl"));
  const libraries = execFileSync("ldd", [perl], { encoding: "utf8" })
    .split("\n")
    .map((line) => /(\/\S+) \(0x/.exec(line)?.[1])
    .filter((file) => file !== undefined);
  for (const library of libraries) {
    cpSync(library, path.join(dir, library), { dereference: true });
  }
  cpSync(PERL_BASE, path.join(dir, PERL_BASE), { recursive: true, dereference: true });
  writeFileSync(path.join(dir, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
}

/** @returns {Promise<TestDocker>} */
export async function startDocker() {
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
  const hasImage = await docker("image", "inspect", TEST_IMAGE).then(
    () => true,
    () => false,
  );
  if (!hasImage) {
    const rootfs = mkdtempSync(path.join(tmpdir(), "acp-rootfs-"));
    try {
      buildRootfs(rootfs);
      execFileSync("sh", ["-c", `tar -C '${rootfs}' -c . | docker import - ${TEST_IMAGE}`], {
        env,
        stdio: ["ignore", "ignore", "inherit"],
      });
    } finally {
      rmSync(rootfs, { recursive: true, force: true });
    }
  }
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
