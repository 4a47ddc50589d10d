import { ProcessError } from "../../base/errors.js";
import type { ResourceLimits } from "../../model/run-record.js";
import { treeCgroups } from "./cgroup-limits.js";

/**
 * Joins the run's cgroups (`$3` of them, the next arguments: see cgroup-limits.ts) so the kernel
 * counts the whole process tree, sets the rlimits given as `$1` (address space, KiB, or `-`) and
 * `$2` (CPU seconds, or `-`) for each process, then execs the command: `--argv program args...`
 * directly, `--line "command line"` through bash (else sh), as acp-terminal runs a command line.
 * The CPU hard limit is one second above the soft one, so the kernel sends SIGXCPU first (which
 * tells a CPU limit from any other SIGKILL); the soft limit is set first, as a hard limit below the
 * current (unlimited) soft one is refused.
 */
const WRAPPER = [
  "as=$1; cpu=$2; n=$3; shift 3",
  'while [ "$n" -gt 0 ]; do',
  '  echo $$ > "$1/cgroup.procs" || { echo "acp-process: could not join the cgroup $1 that limits this run" >&2; exit 126; }',
  "  shift; n=$((n - 1))",
  "done",
  "mode=$1; shift",
  'if [ "$as" != - ]; then ulimit -v "$as" || exit 126; fi',
  'if [ "$cpu" != - ]; then { ulimit -S -t "$cpu" && ulimit -H -t $((cpu + 1)); } || exit 126; fi',
  'if [ "$mode" = --line ]; then if command -v bash >/dev/null 2>&1; then exec bash -c "$1"; fi; exec sh -c "$1"; fi',
  'exec "$@"',
].join("\n");

/** Smallest memory limit accepted: below this not even a shell starts. */
export const MIN_MEMORY_LIMIT_BYTES = 16 * 1024 * 1024;

export function validateResourceLimits(limits: ResourceLimits): void {
  const { memoryBytes, cpuSeconds } = limits;
  if (
    memoryBytes !== undefined &&
    (!Number.isSafeInteger(memoryBytes) || memoryBytes < MIN_MEMORY_LIMIT_BYTES)
  ) {
    throw ProcessError.invalidParams(
      "memory_limit",
      `a whole number of bytes of at least ${MIN_MEMORY_LIMIT_BYTES} (16 MiB)`,
      memoryBytes,
    );
  }
  if (cpuSeconds !== undefined && (!Number.isSafeInteger(cpuSeconds) || cpuSeconds < 1)) {
    throw ProcessError.invalidParams("cpu seconds", "a whole number of seconds from 1", cpuSeconds);
  }
  const { cpuCores } = limits;
  if (cpuCores !== undefined && (!Number.isFinite(cpuCores) || cpuCores <= 0)) {
    throw ProcessError.invalidParams("cpu cores", "a positive share of one core", cpuCores);
  }
}

export function hasResourceLimits(
  limits: ResourceLimits | null | undefined,
): limits is ResourceLimits {
  return (
    limits !== null &&
    limits !== undefined &&
    (limits.memoryBytes !== undefined ||
      limits.cpuSeconds !== undefined ||
      limits.cpuCores !== undefined)
  );
}

/**
 * The program and arguments that run `command`/`args` under `limits`: the whole tree in a cgroup
 * where one can be made (memory, and the CPU share), each process under rlimits (address space,
 * CPU seconds) everywhere.
 */
export function wrapWithLimits(
  command: string,
  args: string[] | null,
  limits: ResourceLimits,
): { command: string; args: string[] } {
  const as = limits.memoryBytes === undefined ? "-" : String(Math.floor(limits.memoryBytes / 1024));
  const cpu = limits.cpuSeconds === undefined ? "-" : String(limits.cpuSeconds);
  const cgroups = treeCgroups(limits);
  const tail = args === null ? ["--line", command] : ["--argv", command, ...args];
  return {
    command: "/bin/sh",
    args: [
      "-c",
      WRAPPER,
      "acp-process-limits",
      as,
      cpu,
      String(cgroups.length),
      ...cgroups,
      ...tail,
    ],
  };
}
