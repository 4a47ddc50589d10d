import { closeSync, openSync, readSync } from "node:fs";
import { readdir } from "node:fs/promises";

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

/** One buffer for every /proc read: a stat, status or io file is a few hundred bytes to 2 KiB. */
const READ_BUFFER = Buffer.allocUnsafeSlow(16 * 1024);

/**
 * A small /proc file's text (the first 16 KiB), or undefined when it cannot be read (the process
 * is gone). Synchronous into one shared buffer: a few microseconds each, where `readFile` took
 * four thread-pool round trips and a 64 KiB buffer per file; a sample reads the stat of every
 * process on the machine (300 of them here made ~19 MB of buffers at once).
 */
function readProcFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (let n; length < READ_BUFFER.length; length += n) {
      n = readSync(fd, READ_BUFFER, length, READ_BUFFER.length - length, null);
      if (n === 0) {
        break;
      }
    }
    return READ_BUFFER.toString("latin1", 0, length);
  } catch {
    return undefined; // gone between the open and the read
  } finally {
    closeSync(fd);
  }
}

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
  for (const pid of entries) {
    if (/^\d+$/.test(pid)) {
      const member = readMember(pid, pgid);
      if (member) {
        usage.cpuUserMs += member.cpuUserMs;
        usage.cpuSystemMs += member.cpuSystemMs;
        usage.rssBytes += member.rssBytes;
        usage.memoryPeakBytes += member.memoryPeakBytes;
        usage.ioReadBytes += member.ioReadBytes;
        usage.ioWriteBytes += member.ioWriteBytes;
        usage.processes += 1;
      }
    }
  }
  return usage.processes > 0 ? usage : null;
}

function readMember(pid: string, pgid: number): Omit<ResourceUsage, "processes"> | null {
  const stat = readProcFile(`/proc/${pid}/stat`);
  if (stat === undefined) {
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
  // Gone meanwhile: its CPU time above still counts, it holds no memory.
  const status = readProcFile(`/proc/${pid}/status`);
  if (status !== undefined) {
    const kb = (name: string): number =>
      Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1] ?? 0) * 1024;
    rssBytes = kb("VmRSS"); // zombies have no VmRSS
    memoryPeakBytes = kb("VmHWM");
  }
  let ioReadBytes = 0;
  let ioWriteBytes = 0;
  // Undefined: exited meanwhile, or not readable here (another user, no task I/O accounting).
  const io = readProcFile(`/proc/${pid}/io`);
  if (io !== undefined) {
    ioReadBytes = Number(/^read_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0);
    ioWriteBytes = Number(/^write_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0);
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
