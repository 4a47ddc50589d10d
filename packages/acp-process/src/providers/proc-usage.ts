import { readdir, readFile } from "node:fs/promises";

/** CPU time and memory of a command's process group, where the provider can measure them. */
export interface ResourceUsage {
  /** User-mode CPU time of the group's current members, in ms. */
  cpuUserMs: number;
  /** Kernel-mode CPU time of the group's current members, in ms. */
  cpuSystemMs: number;
  /** Resident memory of the group's current members, in bytes. */
  rssBytes: number;
  /** Sum of the current members' peak resident memory (VmHWM), in bytes: an upper bound of the group's peak. */
  memoryPeakBytes: number;
  /** Bytes the current members caused to be fetched from storage (/proc/<pid>/io `read_bytes`). */
  ioReadBytes: number;
  /** Bytes the current members caused to be sent to storage (/proc/<pid>/io `write_bytes`). */
  ioWriteBytes: number;
  /** Members of the group found (the command and its children that kept the group). */
  processes: number;
}

/**
 * Linux's clock tick for /proc times. USER_HZ is 100 on every mainstream Linux build; Node does
 * not expose sysconf(_SC_CLK_TCK), so this is the documented assumption.
 */
const TICKS_PER_SECOND = 100;

/**
 * Sums /proc/<pid>/stat (utime, stime) and /proc/<pid>/status (VmRSS) over every process whose
 * process group is `pgid`. Members that exited meanwhile are skipped; CPU time of members that
 * already exited is not counted (the kernel gives it to the parent only when it reaps them).
 * Null where there is no /proc (not Linux).
 */
export async function processGroupUsage(pgid: number): Promise<ResourceUsage | null> {
  if (process.platform !== "linux") {
    return null;
  }
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return null; // /proc not mounted (a restricted container): not measurable
  }
  const usage: ResourceUsage = {
    cpuUserMs: 0,
    cpuSystemMs: 0,
    rssBytes: 0,
    memoryPeakBytes: 0,
    ioReadBytes: 0,
    ioWriteBytes: 0,
    processes: 0,
  };
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (pid) => {
        const member = await readMember(pid, pgid);
        if (!member) {
          return;
        }
        usage.cpuUserMs += member.cpuUserMs;
        usage.cpuSystemMs += member.cpuSystemMs;
        usage.rssBytes += member.rssBytes;
        usage.memoryPeakBytes += member.memoryPeakBytes;
        usage.ioReadBytes += member.ioReadBytes;
        usage.ioWriteBytes += member.ioWriteBytes;
        usage.processes += 1;
      }),
  );
  return usage.processes > 0 ? usage : null;
}

async function readMember(
  pid: string,
  pgid: number,
): Promise<Omit<ResourceUsage, "processes"> | null> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null; // exited between readdir and here
  }
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15.
  if (Number(fields[2]) !== pgid) {
    return null;
  }
  const toMs = (ticks: string | undefined): number => (Number(ticks) * 1000) / TICKS_PER_SECOND;
  let rssBytes = 0;
  let memoryPeakBytes = 0;
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = (name: string): number =>
      Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1] ?? 0) * 1024;
    rssBytes = kb("VmRSS"); // zombies have no VmRSS
    memoryPeakBytes = kb("VmHWM");
  } catch {
    // exited meanwhile: its CPU time above still counts, it holds no memory
  }
  let ioReadBytes = 0;
  let ioWriteBytes = 0;
  try {
    const io = await readFile(`/proc/${pid}/io`, "utf8");
    ioReadBytes = Number(/^read_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0);
    ioWriteBytes = Number(/^write_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0);
  } catch {
    // exited meanwhile, or /proc/<pid>/io is not readable here (another user, no task I/O accounting)
  }
  return {
    cpuUserMs: toMs(fields[11]),
    cpuSystemMs: toMs(fields[12]),
    rssBytes,
    memoryPeakBytes,
    ioReadBytes,
    ioWriteBytes,
  };
}
