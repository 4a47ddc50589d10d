import { readdir, readFile, readlink } from "node:fs/promises";

/**
 * What the kernel names a sleep in a read (`/proc/PID/wchan`) of the stdin a command gets: a
 * socket pair (Node's pipes), a pipe, or a terminal (PTY runs).
 */
const READ_WAITS: readonly [prefix: string, wait: RegExp][] = [
  ["socket:", /unix_stream_read|unix_stream_data_wait/],
  ["pipe:", /pipe_read/],
  ["/dev/pts/", /n_tty_read|wait_woken/],
];

/**
 * Whether a command waits for input: some process of its group (`pgid`, the command's pid) is
 * asleep in a read of the stdin the command was started with (the same socket, pipe or terminal
 * as the group leader's fd 0). Read from /proc (Linux); false where that cannot be told. Nothing was
 * written to the command's stdin that it has not read, so such a read waits for us.
 */
export async function waitsOnStdin(pgid: number): Promise<boolean> {
  let stdin: string;
  try {
    stdin = await readlink(`/proc/${pgid}/fd/0`);
  } catch {
    return false; // not Linux, the leader is gone, or its stdin is closed
  }
  const readWait = READ_WAITS.find(([prefix]) => stdin.startsWith(prefix))?.[1];
  if (!readWait) {
    return false;
  }
  let pids: string[];
  try {
    pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  } catch {
    return false;
  }
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name (which may hold spaces and parentheses): state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid || fields[0] !== "S") {
        continue;
      }
      const [fd0, wchan] = await Promise.all([
        readlink(`/proc/${pid}/fd/0`),
        readFile(`/proc/${pid}/wchan`, "utf8"),
      ]);
      if (fd0 === stdin && readWait.test(wchan)) {
        return true;
      }
    } catch {
      // The process ended while we looked: it waits for nothing.
    }
  }
  return false;
}
