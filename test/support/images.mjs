/**
 * The executor suites' test images, built without any registry: `docker import` (or `podman
 * import`) of a root filesystem made here from this machine's files.
 * - busybox: the static busybox with every applet linked, nothing else (no perl, no bash).
 * - debian-slim-like: dash as /bin/sh and the programs of Debian's coreutils, bash, grep, sed,
 *   findutils and util-linux with the libraries ldd names (what debian:*-slim has).
 * - no-shell: the static busybox without its links, so there is no `sh` to run.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
/** busybox alone: no perl, no bash (what Alpine and busybox images give). */
export const TEST_IMAGE = "acp-terminal-test:busybox";
/** dash as /bin/sh with Debian's coreutils, bash, grep, sed, util-linux: like debian:*-slim. */
export const DEBIAN_IMAGE = "acp-terminal-test:debian-slim-like";
/** a static busybox without its links: no `sh` at all. */
export const NO_SHELL_IMAGE = "acp-terminal-test:no-shell";

const DEBIAN_PACKAGES = ["dash", "bash", "coreutils", "grep", "sed", "findutils", "util-linux"];

/**
 * The directories and files every image has, with the modes a distribution gives them (the root
 * came from mkdtemp, 0700, and the umask takes /tmp's write bits): a user other than root writes
 * in /tmp and owns its home. os-release is what the Dev Container CLI reads first.
 * @param {string} dir
 */
function skeleton(dir) {
  for (const sub of ["bin", "tmp", "etc", "root", "proc", "dev", "sys", "usr/bin", "home/dev"]) {
    mkdirSync(path.join(dir, sub), { recursive: true });
  }
  chmodSync(dir, 0o755);
  chmodSync(path.join(dir, "tmp"), 0o1777);
  if (process.getuid?.() === 0) {
    chownSync(path.join(dir, "home/dev"), 1000, 1000);
  }
  writeFileSync(
    path.join(dir, "etc/os-release"),
    'ID=acp-terminal-test\nNAME="acp-terminal test image"\n',
  );
  writeFileSync(
    path.join(dir, "etc/passwd"),
    "root:x:0:0:root:/root:/bin/sh\ndev:x:1000:1000:dev:/home/dev:/bin/sh\n",
  );
  writeFileSync(path.join(dir, "etc/group"), "root:x:0:\ndev:x:1000:\n");
}

function busyboxBinary() {
  const busybox = ["/bin/busybox", "/usr/bin/busybox"].find((file) => existsSync(file));
  if (!busybox) {
    throw new Error(
      "The test images need a static busybox: apt-get install busybox-static (.ci/run does it)",
    );
  }
  return busybox;
}

/** @param {string} dir */
function busyboxRootfs(dir) {
  skeleton(dir);
  const busybox = busyboxBinary();
  cpSync(busybox, path.join(dir, "bin/busybox"));
  const applets = execFileSync(busybox, ["--list"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  for (const applet of applets) {
    if (applet !== "busybox") {
      symlinkSync("busybox", path.join(dir, "bin", applet));
    }
  }
}

/** @param {string} dir */
function noShellRootfs(dir) {
  skeleton(dir);
  cpSync(busyboxBinary(), path.join(dir, "bin/busybox"));
}

/** @param {string} dir */
function debianRootfs(dir) {
  skeleton(dir);
  const programs = DEBIAN_PACKAGES.flatMap((name) =>
    execFileSync("dpkg", ["-L", name], { encoding: "utf8" })
      .split("\n")
      .filter((file) => /^\/(usr\/)?s?bin\/[^/]+$/.test(file)),
  ).filter((file) => existsSync(file) && !lstatSync(file).isDirectory());
  const libraries = new Set();
  for (const program of programs) {
    cpSync(program, path.join(dir, program), { dereference: true });
    let linked = "";
    try {
      linked = execFileSync("ldd", [program], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
    } catch {
      continue; // a script or a static program
    }
    for (const line of linked.split("\n")) {
      const file = /(\/\S+) \(0x/.exec(line)?.[1];
      if (file) {
        libraries.add(file);
      }
    }
  }
  for (const library of libraries) {
    cpSync(library, path.join(dir, library), { dereference: true });
  }
  rmSync(path.join(dir, "bin/sh"), { force: true });
  symlinkSync("dash", path.join(dir, "bin/sh"));
}

/**
 * Imports each test image the engine lacks. `cli` is `docker` or `podman` (with its first
 * arguments), `env` its environment.
 * @param {string} cli @param {NodeJS.ProcessEnv} env @param {string[]} [cliArgs]
 */
export async function importImages(cli, env, cliArgs = []) {
  const images = /** @type {const} */ ([
    [TEST_IMAGE, busyboxRootfs],
    [DEBIAN_IMAGE, debianRootfs],
    [NO_SHELL_IMAGE, noShellRootfs],
  ]);
  for (const [image, build] of images) {
    try {
      execFileSync(cli, [...cliArgs, "image", "inspect", image], { env, stdio: "ignore" });
      continue;
    } catch {
      // not there yet
    }
    const rootfs = mkdtempSync(path.join(tmpdir(), "acp-rootfs-"));
    try {
      build(rootfs);
      execFileSync(
        "sh",
        [
          "-c",
          'root=$1 image=$2; shift 2; tar -C "$root" -c . | "$@" import - "$image"',
          "sh",
        ].concat([rootfs, image, cli, ...cliArgs]),
        { env, stdio: ["ignore", "ignore", "inherit"] },
      );
    } finally {
      rmSync(rootfs, { recursive: true, force: true });
    }
  }
}
