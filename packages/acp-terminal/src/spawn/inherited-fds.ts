import { readdirSync, readFileSync } from "node:fs";
import { findOnPath } from "./command.js";

/** O_CLOEXEC as /proc/<pid>/fdinfo prints `flags` (octal). */
const CLOSE_ON_EXEC = 0o2000000;
/** Closes the descriptors its first argument lists (comma-separated), then runs the rest. */
const CLOSER_SCRIPT =
  'use POSIX (); POSIX::close($_) for split /,/, shift; exec { $ARGV[0] } @ARGV or die "acp-terminal: cannot run $ARGV[0]: $!\\n"';

let inherited: readonly number[] | undefined;
let closer: readonly string[] | undefined;

/**
 * The descriptors above stderr this process holds without close-on-exec: those it inherited from
 * whoever started it (its parent's fd 240, open on a file, say), since libuv opens its own
 * close-on-exec. A child_process or node-pty child gets every one of them. Read once (a process
 * inherits at its start) from /proc/self/fdinfo; none where there is no /proc.
 */
export function inheritedDescriptors(): readonly number[] {
  inherited ??= readInherited();
  return inherited;
}

function readInherited(): number[] {
  let fds: string[];
  try {
    fds = readdirSync("/proc/self/fd");
  } catch {
    return []; // no /proc: nothing to tell them apart by
  }
  const channel = Number(process.env.NODE_CHANNEL_FD ?? -1); // Node's own IPC channel, if any
  return fds
    .map(Number)
    .filter((fd) => fd > 2 && fd !== channel)
    .filter((fd) => {
      try {
        const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
        return flags !== null && (parseInt(flags[1]!, 8) & CLOSE_ON_EXEC) === 0;
      } catch {
        return false; // the directory listing's own fd, closed since
      }
    });
}

/**
 * The words that close the inherited descriptors before the command runs (perl), for the spawns
 * this process makes itself (the launcher closes them at its start): empty when there are none,
 * or no perl (then they stay open in commands, as they are in this process).
 */
export function closeInheritedPrefix(): readonly string[] {
  closer ??= ((): string[] => {
    const fds = inheritedDescriptors();
    const perl =
      fds.length > 0 ? findOnPath("perl", process.env.PATH ?? "/usr/bin:/bin") : undefined;
    return perl === undefined ? [] : [perl, "-e", CLOSER_SCRIPT, fds.join(",")];
  })();
  return closer;
}
