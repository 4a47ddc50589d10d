/**
 * Whether commands can be sandboxed here, found out once per process: bubblewrap (`bwrap`, from
 * the distribution) on PATH, and a probe that runs `true` in the very sandbox a read-only command
 * gets. What fails (no bwrap, user namespaces disabled by sysctl or AppArmor, a bwrap too old for
 * the options) is kept as the reason, so "unavailable" can say why and what to do.
 */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { findOnPath } from "../spawn/command.js";
import { bubblewrapArgv, type BubblewrapFeatures } from "./bubblewrap.js";

export type BubblewrapSupport =
  | { available: true; bwrap: string; features: BubblewrapFeatures }
  | { available: false; reason: string };

/** Bounds each probe (together they take ~10 ms). */
const PROBE_TIMEOUT_MS = 5_000;
const INSTALL_HINT =
  "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)";

let detected: BubblewrapSupport | undefined;

export function bubblewrapSupport(): BubblewrapSupport {
  detected ??= detect();
  return detected;
}

function detect(): BubblewrapSupport {
  if (process.platform !== "linux") {
    return {
      available: false,
      reason: `bubblewrap runs on Linux only, this is ${process.platform}`,
    };
  }
  const bwrap = findOnPath("bwrap", process.env.PATH ?? "/usr/bin:/bin");
  if (bwrap === undefined) {
    return { available: false, reason: `bwrap was not found on PATH: ${INSTALL_HINT}` };
  }
  const help = spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: PROBE_TIMEOUT_MS });
  const usage = `${help.stdout ?? ""}${help.stderr ?? ""}`;
  // Options of bubblewrap 0.8 (Debian 12); older versions run without them.
  const features: BubblewrapFeatures = {
    disableUserns: usage.includes("--disable-userns"),
    tmpfsSize: usage.includes("--size"),
  };
  const argv = bubblewrapArgv(bwrap, features, {
    mode: "read-only",
    workspace: tmpdir(),
    network: false,
    cwd: "/",
    gitDirs: [],
    gitGuards: [],
  });
  const probe = spawnSync(argv[0]!, [...argv.slice(1), "/bin/sh", "-c", "exit 0"], {
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
    timeout: PROBE_TIMEOUT_MS,
  });
  if (probe.status !== 0) {
    const said = (probe.stderr ?? "").trim().split("\n")[0]?.slice(0, 300) ?? "";
    return {
      available: false,
      reason:
        `${bwrap} could not start a sandbox (${said || probe.error?.message || `exit ${probe.status ?? probe.signal}`}): ` +
        "unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or AppArmor's kernel.apparmor_restrict_unprivileged_userns)",
    };
  }
  return { available: true, bwrap, features };
}
