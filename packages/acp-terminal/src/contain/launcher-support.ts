/**
 * Whether commands can be started through the launcher here (see helper/launcher.pl), found out
 * once per process: Linux with /proc, `perl` on the PATH, the prctl system call's number known
 * for this architecture, and prctl(PR_SET_CHILD_SUBREAPER) allowed (seccomp may refuse it). The
 * probe runs perl once (~5 ms; a host starting its launcher ahead asks without blocking). Anything missing means: commands are spawned by Node itself and
 * contained by their process group only.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { Socket } from "node:net";
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
  if (!detected) {
    const candidate = candidateTools();
    detected = { tools: candidate && probeSync(candidate) ? candidate : undefined };
  }
  return detected.tools;
}

/**
 * The same, found out without blocking the event loop (a host about to need it asks this way);
 * a `launcherSupport()` call meanwhile probes for itself.
 */
export function launcherSupportLater(): Promise<LauncherTools | undefined> {
  if (detected) {
    return Promise.resolve(detected.tools);
  }
  const candidate = candidateTools();
  if (!candidate) {
    detected = { tools: undefined };
    return Promise.resolve(undefined);
  }
  const probe = spawn(candidate.perl, probeArgs(candidate), {
    stdio: ["ignore", "pipe", "ignore"],
    timeout: PROBE_TIMEOUT_MS,
  });
  let said = "";
  probe.stdout.setEncoding("utf8").on("data", (chunk: string) => (said += chunk));
  // A probe does not keep the process alive: one that exits first has no launcher to start.
  probe.unref();
  if (probe.stdout instanceof Socket) {
    probe.stdout.unref();
  }
  return new Promise((resolve) => {
    probe.once("error", () => resolve(undefined));
    probe.once("close", (code) => {
      detected ??= { tools: code === 0 && said === "yes" ? candidate : undefined };
      resolve(detected.tools);
    });
  });
}

/** Where perl and prctl's number can be had here; the probe then says whether prctl works. */
function candidateTools(): LauncherTools | undefined {
  const prctl = PRCTL_SYSCALL[process.arch];
  if (process.platform !== "linux" || prctl === undefined || !existsSync("/proc/self/fd")) {
    return undefined;
  }
  const perl = findOnPath("perl", process.env.PATH ?? "/usr/bin:/bin");
  return perl ? { perl, prctl } : undefined;
}

const probeArgs = ({ prctl }: LauncherTools): string[] => [
  "-e",
  'print syscall($ARGV[0], 36, 1, 0, 0, 0) == 0 ? "yes" : "no"',
  String(prctl),
];

function probeSync(tools: LauncherTools): boolean {
  const probe = spawnSync(tools.perl, probeArgs(tools), {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: PROBE_TIMEOUT_MS,
  });
  return probe.status === 0 && probe.stdout === "yes";
}
