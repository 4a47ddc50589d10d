import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Limits on a command's whole process tree, as the kernel enforces them through control groups:
 * a cgroup made for the run, below the cgroup this process is in (where it may create one), which
 * the rlimit wrapper joins before it executes the command, so every descendant is counted.
 *
 * - memory: cgroup v2 `memory.max` (swap 0, `memory.oom.group`), or v1 `memory.limit_in_bytes`
 *   (and `memsw` where swap is accounted): the tree's resident memory; past it the kernel's OOM
 *   killer ends a process of the run (v2: all of them).
 * - cpu: v2 `cpu.max`, or v1 `cpu.cfs_quota_us`, at `cores` of one core: the tree never gets more,
 *   so over its timeout it uses at most cores × timeout CPU seconds.
 *
 * Where neither version offers the controller to this process (cgroup v2 whose own cgroup holds
 * processes and has not delegated the controller below it, as for most desktop sessions; a user
 * without write access), nothing is made here and only the per-process rlimits bind.
 */
export interface TreeLimits {
  memoryBytes?: number | undefined;
  /** A share of one core (0.5 = half a core). */
  cpuCores?: number | undefined;
}

type Controller = "memory" | "cpu";

/** One cgroup hierarchy that has the controller, and this process's cgroup directory in it. */
interface Hierarchy {
  version: 1 | 2;
  /** This process's own cgroup, as a directory. */
  dir: string;
}

const PREFIX = "acp-run-";
const CPU_PERIOD_US = 100_000;

/** The kernel mechanisms that would bind a run's tree now, per controller (for messages and tests). */
export function treeLimitMechanisms(): Record<Controller, string | null> {
  const describe = (controller: Controller) => {
    const hierarchy = hierarchyFor(controller);
    return hierarchy ? `cgroup v${hierarchy.version}` : null;
  };
  return { memory: describe("memory"), cpu: describe("cpu") };
}

/**
 * Makes the run's cgroup(s) with `limits` written, and returns the directories the command must
 * join (its `cgroup.procs`); [] where no cgroup can be had (then rlimits alone bind). Empty
 * cgroups of earlier runs are removed first.
 */
export function treeCgroups(limits: TreeLimits): string[] {
  const made = new Map<string, string>();
  const controllers: Controller[] = [];
  if (limits.memoryBytes !== undefined) {
    controllers.push("memory");
  }
  if (limits.cpuCores !== undefined) {
    controllers.push("cpu");
  }
  for (const controller of controllers) {
    const hierarchy = hierarchyFor(controller);
    if (!hierarchy) {
      continue;
    }
    let dir = made.get(hierarchy.dir);
    try {
      if (dir === undefined) {
        sweep(hierarchy.dir);
        dir = path.join(hierarchy.dir, `${PREFIX}${randomUUID()}`);
        mkdirSync(dir);
        made.set(hierarchy.dir, dir);
      }
      writeLimits(dir, hierarchy.version, controller, limits);
    } catch {
      // This hierarchy refused (no permission, the controller is not ours): the rlimits still bind.
      if (dir !== undefined) {
        tryRmdir(dir);
        made.delete(hierarchy.dir);
      }
    }
  }
  return [...made.values()];
}

function writeLimits(
  dir: string,
  version: 1 | 2,
  controller: Controller,
  limits: TreeLimits,
): void {
  const write = (file: string, value: string | number) =>
    writeFileSync(path.join(dir, file), String(value));
  const optional = (file: string, value: string | number) => {
    try {
      write(file, value);
    } catch {
      // Absent on this kernel (no swap accounting, no oom.group): the main limit still binds.
    }
  };
  if (controller === "memory") {
    const bytes = limits.memoryBytes!;
    if (version === 2) {
      write("memory.max", bytes);
      optional("memory.swap.max", 0);
      optional("memory.oom.group", 1);
    } else {
      write("memory.limit_in_bytes", bytes);
      optional("memory.memsw.limit_in_bytes", bytes);
    }
    return;
  }
  const quota = Math.max(1000, Math.round(limits.cpuCores! * CPU_PERIOD_US));
  if (version === 2) {
    write("cpu.max", `${quota} ${CPU_PERIOD_US}`);
  } else {
    write("cpu.cfs_period_us", CPU_PERIOD_US);
    write("cpu.cfs_quota_us", quota);
  }
}

/** Removes the empty cgroups earlier runs left (a cgroup in use refuses rmdir). */
function sweep(dir: string): void {
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith(PREFIX)) {
      tryRmdir(path.join(dir, entry));
    }
  }
}

function tryRmdir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Still in use (EBUSY: its run goes on) or gone already: left to the next sweep.
  }
}

/**
 * Where this process can make a child cgroup with `controller`: cgroup v2 when its own cgroup
 * already delegates the controller to children (or is the hierarchy's root), else cgroup v1 when
 * the controller has a hierarchy of its own; undefined when neither is writable here.
 */
function hierarchyFor(controller: Controller): Hierarchy | undefined {
  let mounts: string;
  let membership: string;
  try {
    mounts = readFileSync("/proc/self/mountinfo", "utf8");
    membership = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return undefined; // not Linux
  }
  const own = (matches: (controllers: string[]) => boolean) =>
    membership
      .split("\n")
      .map((line) => /^(\d+):([^:]*):(.*)$/.exec(line))
      .find((match) => match !== null && matches(match[2]!.split(",")))?.[3];
  for (const line of mounts.split("\n")) {
    // mountinfo: id parent dev root mountpoint options ... - fstype source superoptions
    const [left, right] = line.split(" - ");
    const fields = left?.split(" ") ?? [];
    const [fstype, , superOptions] = right?.split(" ") ?? [];
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) {
      continue;
    }
    if (fstype === "cgroup2") {
      const ownPath = own((controllers) => controllers.length === 1 && controllers[0] === "");
      const dir = ownPath === undefined ? undefined : inMount(mountPoint, root, ownPath);
      if (dir && v2Delegates(dir, controller, ownPath === root)) {
        return { version: 2, dir };
      }
    } else if (fstype === "cgroup" && superOptions?.split(",").includes(controller)) {
      const ownPath = own((controllers) => controllers.includes(controller));
      const dir = ownPath === undefined ? undefined : inMount(mountPoint, root, ownPath);
      if (dir) {
        return { version: 1, dir };
      }
    }
  }
  return undefined;
}

/** The directory of cgroup `ownPath` under a mount of the hierarchy's `root` at `mountPoint`. */
function inMount(mountPoint: string, root: string, ownPath: string): string | undefined {
  const relative = path.posix.relative(root, ownPath);
  return relative.startsWith("..") ? undefined : path.join(mountPoint, relative);
}

/** Whether a v2 cgroup gives `controller` to the children made in it (enabling it where allowed). */
function v2Delegates(dir: string, controller: Controller, isRoot: boolean): boolean {
  try {
    const enabled = readFileSync(path.join(dir, "cgroup.subtree_control"), "utf8").split(/\s+/);
    if (enabled.includes(controller)) {
      return true;
    }
    if (!isRoot) {
      return false; // a cgroup holding processes cannot delegate (the no-internal-process rule)
    }
    writeFileSync(path.join(dir, "cgroup.subtree_control"), `+${controller}`);
    return true;
  } catch {
    return false;
  }
}
