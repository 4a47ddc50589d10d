/**
 * The executor suites' test images, built without any registry: `docker import` (or `podman
 * import`) of a root filesystem made here from this machine's files.
 * - busybox: the static busybox with every applet linked, nothing else (no perl, no bash).
 * - debian-slim-like: dash as /bin/sh and the programs of Debian's coreutils, bash, grep, sed,
 *   findutils and util-linux with the libraries ldd names (what debian:*-slim has).
 * - no-shell: the static busybox without its links, so there is no `sh` to run.
 * Each root is made once per machine and kept as a tar (see CACHE), which every suite imports.
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
/** busybox alone: no perl, no bash (what Alpine and busybox images give). */
export const TEST_IMAGE = "acp-terminal-test:busybox";
/** dash as /bin/sh with Debian's coreutils, bash, grep, sed, util-linux: like debian:*-slim. */
export const DEBIAN_IMAGE = "acp-terminal-test:debian-slim-like";
/** a static busybox without its links: no `sh` at all. */
export const NO_SHELL_IMAGE = "acp-terminal-test:no-shell";
/** dash and mktemp alone: a sh without the utilities the helper needs. */
export const SH_ONLY_IMAGE = "acp-terminal-test:sh-only";

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

/** This machine's static busybox (busybox-static); throws saying how to get it. */
export function busyboxBinary() {
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
  cpSync(busyboxBinary(), path.join(dir, "bin/busybox"));
  linkApplets(path.join(dir, "bin"), "busybox");
}

/** A link to `target` in `bin` for each of busybox's applets. @param {string} bin @param {string} target */
function linkApplets(bin, target) {
  const applets = execFileSync(busyboxBinary(), ["--list"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  for (const applet of applets) {
    if (applet !== "busybox") {
      symlinkSync(target, path.join(bin, applet));
    }
  }
}

/**
 * This machine's busybox as a PATH of its own: `dir` gets a link to it for each applet, so that a
 * PATH of `dir` alone is a busybox userland (`sh`, `mkfifo`, `grep`…). @param {string} dir
 */
export function busyboxAppletDir(dir) {
  linkApplets(dir, busyboxBinary());
  return dir;
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
  copyWithLibraries(dir, programs);
  rmSync(path.join(dir, "bin/sh"), { force: true });
  symlinkSync("dash", path.join(dir, "bin/sh"));
}

/** dash as /bin/sh and mktemp, nothing else: the helper starts and finds what it lacks. */
function shOnlyRootfs(dir) {
  skeleton(dir);
  copyWithLibraries(dir, ["/usr/bin/dash", "/usr/bin/mktemp"]);
  symlinkSync("../usr/bin/dash", path.join(dir, "bin/sh"));
}

/** Copies each program to the same path under `dir`, with the shared libraries it links.
 * @param {string} dir @param {string[]} programs */
function copyWithLibraries(dir, programs) {
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
}

/** How each image's root filesystem is made. */
const BUILDERS = new Map([
  [TEST_IMAGE, busyboxRootfs],
  [DEBIAN_IMAGE, debianRootfs],
  [NO_SHELL_IMAGE, noShellRootfs],
  [SH_ONLY_IMAGE, shOnlyRootfs],
]);
export const ALL_IMAGES = [...BUILDERS.keys()];

/**
 * Where the images' tars are kept between suites and engines, named by this module's text (a
 * change to an image's definition makes new ones; `rm -r` the directory after a change of this
 * machine's packages).
 */
const CACHE = path.join(
  tmpdir(),
  `acp-terminal-test-images-${process.getuid?.() ?? "user"}-${createHash("sha256")
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest("hex")
    .slice(0, 12)}`,
);

/**
 * The tar of `image`'s root filesystem: built once on this machine, then the same file for every
 * suite and engine (a concurrent build of the same image is harmless: each renames its own file
 * into place).
 * @param {string} image @returns {string}
 */
function rootfsTar(image) {
  const tar = path.join(CACHE, `${image.replace(/[^A-Za-z0-9.-]/g, "_")}.tar`);
  if (existsSync(tar)) {
    return tar;
  }
  mkdirSync(CACHE, { recursive: true, mode: 0o700 });
  const rootfs = mkdtempSync(path.join(tmpdir(), "acp-rootfs-"));
  const partial = `${tar}.${process.pid}`;
  try {
    BUILDERS.get(image)?.(rootfs);
    execFileSync("tar", ["-C", rootfs, "-cf", partial, "."]);
    renameSync(partial, tar);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
  return tar;
}

/**
 * Imports each of `images` (default: all) that the engine lacks, at once. `cli` is `docker` or
 * `podman`, `env` its environment.
 * @param {string} cli @param {NodeJS.ProcessEnv} env @param {string[]} [images]
 */
export async function importImages(cli, env, images = ALL_IMAGES) {
  const tars = images.map((image) => [image, rootfsTar(image)]);
  await Promise.all(
    tars.map(async ([image, tar]) => {
      try {
        await run(cli, ["image", "inspect", image], { env });
        return;
      } catch {
        // not there yet
      }
      await run(cli, ["import", tar, image], { env });
    }),
  );
}
