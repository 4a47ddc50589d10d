/**
 * Commands that try to outlive their terminal, each with a marker on every process it starts (a
 * `sleep` duration no other process uses). `processes` is how many marked processes run once the
 * command has started everything: wait for that many before the fault, count 0 after it.
 */
export interface EscapeCase {
  name: string;
  command: string;
  processes: number;
  /** Leaves its process group (so a process-group kill misses it). */
  leavesGroup: boolean;
  /** Also clears its environment (so a marker inherited through the environment misses it). */
  clearsEnv?: boolean;
}

/** A marker unique to this test process and call: a sleep duration like `900.123456`. */
export function newMarker(): string {
  return `900.${String(process.pid % 1000).padStart(3, "0")}${String(Math.floor(Math.random() * 1000)).padStart(3, "0")}`;
}

export function escapeCases(marker: string): EscapeCase[] {
  const leader = `exec sleep ${marker}`;
  return [
    {
      name: "a background child",
      command: `sleep ${marker} & ${leader}`,
      processes: 2,
      leavesGroup: false,
    },
    {
      name: "nohup, ignoring SIGTERM",
      command: `nohup sh -c 'trap "" TERM HUP INT; sleep ${marker}' >/dev/null 2>&1 & ${leader}`,
      processes: 3,
      leavesGroup: false,
    },
    {
      name: "setsid",
      command: `setsid sleep ${marker} & ${leader}`,
      processes: 2,
      leavesGroup: true,
    },
    {
      name: "setsid -f, holding the output",
      command: `setsid -f sleep ${marker}; ${leader}`,
      processes: 2,
      leavesGroup: true,
    },
    {
      name: "a double fork",
      command: `(setsid sh -c 'sleep ${marker} & exit 0' &); ${leader}`,
      processes: 2,
      leavesGroup: true,
    },
    {
      name: "env -i, setsid and a double fork",
      command: `(env -i /usr/bin/setsid /bin/sh -c '/bin/sleep ${marker} & exit 0' &); ${leader}`,
      processes: 2,
      leavesGroup: true,
      clearsEnv: true,
    },
  ];
}
