import { open, readdir, readFile, readlink } from "node:fs/promises";

/**
 * Whether a command is blocked reading its input, from /proc (Linux): a process of the command
 * (for a PTY, of the terminal's foreground process group) sleeping in a read of its terminal or
 * of the run's stdin, or in poll/select/epoll with that input among the descriptors it waits for.
 * `/proc/<pid>/syscall` says which call a sleeping process is in and its arguments (readable for
 * our own children: same user, and Yama lets a parent trace its descendants); the descriptors
 * behind poll and select are read from `/proc/<pid>/mem`, those behind epoll from
 * `/proc/<pid>/fdinfo/<epfd>`. Null where it cannot be told (not Linux, no access): callers fall
 * back to a guess from the output.
 */
export interface InputWait {
  /** The process that waits. */
  pid: number;
  /** Its command name (`/proc/<pid>/comm`). */
  command: string;
  /** How it waits, for messages: `read(0) on /dev/pts/3`. */
  how: string;
}

/** Syscall numbers by architecture: reads take the fd first; the rest say where the fds are. */
const SYSCALLS: Record<
  string,
  Record<number, "read" | "poll" | "ppoll" | "select" | "pselect" | "epoll">
> = {
  x64: {
    0: "read",
    17: "read",
    19: "read",
    7: "poll",
    271: "ppoll",
    23: "select",
    270: "pselect",
    232: "epoll",
    281: "epoll",
    441: "epoll",
  },
  arm64: {
    63: "read",
    65: "read",
    67: "read",
    73: "ppoll",
    72: "pselect",
    22: "epoll",
    441: "epoll",
  },
};

/** Processes looked at per probe (a fork bomb must not make a probe unbounded). */
const MAX_PROCESSES = 256;
/** Descriptors read from one poll/select set. */
const MAX_FDS = 1024;

/**
 * The first process of the command at `leaderPid` (the terminal's process group leader) found
 * waiting for input, or undefined when none is; null when /proc cannot tell.
 */
export async function probeInputWait(
  leaderPid: number,
  options: { pty: boolean },
): Promise<InputWait | undefined | null> {
  const table = SYSCALLS[process.arch];
  if (process.platform !== "linux" || !table) {
    return null;
  }
  const leader = await stat(leaderPid);
  if (!leader) {
    return undefined; // it has exited
  }
  // A pipe run's input is the leader's stdin (a socket pair or a pipe); a PTY run's is its terminal.
  const stdinTarget = await readlink(`/proc/${leaderPid}/fd/0`).catch(() => undefined);
  const isInput = (target: string): boolean =>
    options.pty
      ? /^\/dev\/(pts\/\d+|tty)$/.test(target)
      : target === stdinTarget || target === "/dev/tty";
  let readable = false;
  for (const pid of await descendants(leaderPid)) {
    const info = pid === leaderPid ? leader : await stat(pid);
    if (
      !info ||
      info.state !== "S" ||
      (options.pty && leader.tpgid > 0 && info.pgrp !== leader.tpgid)
    ) {
      continue;
    }
    const call = await syscall(pid);
    if (call === null) {
      continue;
    }
    readable = true;
    const kind = table[call.nr];
    if (kind === undefined) {
      continue;
    }
    for (const fd of await waitedFds(pid, kind, call.args)) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      if (isInput(target)) {
        const command = (await readFile(`/proc/${pid}/comm`, "utf8").catch(() => "?")).trim();
        return { pid, command, how: `${kind === "read" ? "read" : kind}(${fd}) on ${target}` };
      }
    }
  }
  return readable ? undefined : null;
}

async function stat(
  pid: number,
): Promise<{ state: string; pgrp: number; tpgid: number } | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (text === undefined) {
    return undefined;
  }
  // Fields after the command name, which is in parentheses and may hold spaces or ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", pgrp: Number(fields[2]), tpgid: Number(fields[5]) };
}

/** The leader and its descendants (children of every thread), at most MAX_PROCESSES. */
async function descendants(leaderPid: number): Promise<number[]> {
  const found = [leaderPid];
  for (let i = 0; i < found.length && found.length < MAX_PROCESSES; i++) {
    const pid = found[i]!;
    const threads = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    for (const tid of threads) {
      const children = await readFile(`/proc/${pid}/task/${tid}/children`, "utf8").catch(() => "");
      for (const child of children.split(" ")) {
        if (child.length > 0 && found.length < MAX_PROCESSES) {
          found.push(Number(child));
        }
      }
    }
  }
  return found;
}

/** The call a sleeping process is in: its number and first arguments; null when not readable. */
async function syscall(pid: number): Promise<{ nr: number; args: bigint[] } | null> {
  const text = await readFile(`/proc/${pid}/syscall`, "utf8").catch(() => null);
  if (text === null) {
    return null;
  }
  const [nr, ...args] = text.trim().split(" ");
  if (nr === undefined || !/^\d+$/.test(nr)) {
    return { nr: -1, args: [] }; // "running" or "-1 ...": not in a call
  }
  return { nr: Number(nr), args: args.slice(0, 3).map((arg) => BigInt(arg)) };
}

/** The descriptors a blocked call waits to read from. */
async function waitedFds(pid: number, kind: string, args: bigint[]): Promise<number[]> {
  const [a0 = 0n, a1 = 0n] = args;
  switch (kind) {
    case "read":
      return [Number(a0)];
    case "poll":
    case "ppoll": {
      // struct pollfd { int fd; short events; short revents; }: POLLIN = 1.
      const count = Math.min(Number(a1), MAX_FDS);
      const bytes = await memory(pid, a0, count * 8);
      const fds: number[] = [];
      for (let i = 0; bytes && i + 8 <= bytes.length; i += 8) {
        if ((bytes.readInt16LE(i + 4) & 1) !== 0) {
          fds.push(bytes.readInt32LE(i));
        }
      }
      return fds;
    }
    case "select":
    case "pselect": {
      // A bitmap of nfds bits at the readfds pointer.
      const count = Math.min(Number(a0), MAX_FDS);
      const bytes = a1 === 0n ? undefined : await memory(pid, a1, Math.ceil(count / 8));
      const fds: number[] = [];
      for (let fd = 0; bytes && fd < count; fd++) {
        if ((bytes[fd >> 3]! & (1 << (fd & 7))) !== 0) {
          fds.push(fd);
        }
      }
      return fds;
    }
    default: {
      // epoll: the interest list, one "tfd: N events: HEX" line per descriptor; EPOLLIN = 1.
      const info = await readFile(`/proc/${pid}/fdinfo/${Number(a0)}`, "utf8").catch(() => "");
      return [...info.matchAll(/^tfd:\s*(\d+)\s+events:\s*([0-9a-f]+)/gm)]
        .filter((m) => (parseInt(m[2]!, 16) & 1) !== 0)
        .map((m) => Number(m[1]));
    }
  }
}

async function memory(pid: number, address: bigint, length: number): Promise<Buffer | undefined> {
  if (length <= 0) {
    return undefined;
  }
  const file = await open(`/proc/${pid}/mem`, "r").catch(() => undefined);
  if (!file) {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(length);
    // User-space addresses (below 2^47 on x86_64 and arm64) are exact as numbers.
    const { bytesRead } = await file.read(buffer, 0, length, Number(address));
    return buffer.subarray(0, bytesRead);
  } catch {
    return undefined; // the address is gone (it woke up): not waiting
  } finally {
    await file.close();
  }
}
