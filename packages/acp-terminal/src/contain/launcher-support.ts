/**
 * Whether commands can be started through the launcher here (see launcher-script.ts), found out
 * once per process: Linux with /proc, `perl` on the PATH, the prctl system call's number known
 * for this architecture, and prctl(PR_SET_CHILD_SUBREAPER) allowed (seccomp may refuse it). The
 * probe runs perl once (~5 ms). Anything missing means: commands are spawned by Node itself and
 * contained by their process group only.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { findOnPath } from "../spawn/command.js";

export interface LauncherTools {
  perl: string;
  /** prctl's system call number on this architecture. */
  prctl: number;
}

/** prctl's number per Node architecture (the kernel's syscall tables). */
const PRCTL_SYSCALL: Readonly<Partial<Record<string, number>>> = {
  x64: 157,
  arm64: 167,
  riscv64: 167,
  loong64: 167,
  ia32: 172,
  arm: 172,
  s390x: 172,
  ppc64: 171,
};

/** Bounds the one-time probe. */
const PROBE_TIMEOUT_MS = 5_000;

let detected: { tools: LauncherTools | undefined } | undefined;

/** The launcher's tools, or undefined where commands cannot be started through it. */
export function launcherSupport(): LauncherTools | undefined {
  detected ??= { tools: detect() };
  return detected.tools;
}

function detect(): LauncherTools | undefined {
  const prctl = PRCTL_SYSCALL[process.arch];
  if (process.platform !== "linux" || prctl === undefined || !existsSync("/proc/self/fd")) {
    return undefined;
  }
  const perl = findOnPath("perl", process.env.PATH ?? "/usr/bin:/bin");
  if (!perl) {
    return undefined;
  }
  const probe = spawnSync(
    perl,
    ["-e", 'print syscall($ARGV[0], 36, 1, 0, 0, 0) == 0 ? "yes" : "no"', String(prctl)],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: PROBE_TIMEOUT_MS },
  );
  return probe.status === 0 && probe.stdout === "yes" ? { perl, prctl } : undefined;
}
