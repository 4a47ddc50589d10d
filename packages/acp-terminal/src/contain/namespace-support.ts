/**
 * Whether each terminal can get its own PID namespace here, found out once per process.
 *
 * The tools are util-linux `unshare` and `nsenter` (see pid-namespace.ts for how they are used).
 * A process with CAP_SYS_ADMIN (root) creates the PID namespace directly; any other user needs an
 * unprivileged user namespace around it, which maps only its own uid and gid. The probe does the
 * whole thing once, as a terminal would: it starts a namespace, runs a command through nsenter
 * and checks that the command's child got pid 2 in it. Whatever fails (no util-linux, user
 * namespaces disabled by sysctl, AppArmor or seccomp, an unshare without --map-current-user, an
 * nsenter without --no-fork) means: no containment, process-group kill plus the reaper.
 */
import { spawnSync } from "node:child_process";
import { findOnPath } from "../spawn/command.js";

export interface NamespaceTools {
  unshare: string;
  nsenter: string;
  /** The PID namespace is owned by a new user namespace (an unprivileged user). */
  userNamespace: boolean;
}

/** Bounds the one-time probe (it takes ~10 ms). */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * $1 unshare, $2 nsenter, $3 "user" or "": starts a namespace whose init marks a file once it
 * runs (the uid map is written by then), enters it as a terminal would, and prints the pid that
 * the command's child has inside (2 when contained).
 */
const PROBE_SCRIPT = `unshare=$1 nsenter=$2 mode=$3
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"; [ -n "$holder" ] && kill -KILL "$holder" 2>/dev/null' EXIT
if [ "$mode" = user ]; then set -- --user --map-current-user; else set --; fi
"$unshare" "$@" --pid --fork --kill-child -- /bin/sh -c ': > "$0"; exec sleep 10' "$dir/ready" </dev/null >/dev/null 2>&1 &
holder=$!
i=0
until [ -e "$dir/ready" ]; do
  kill -0 "$holder" 2>/dev/null || exit 2
  i=$((i + 1)); [ "$i" -le 400 ] || exit 3
  sleep 0.005
done
if [ "$mode" = user ]; then set -- "--user=/proc/$holder/ns/user" --preserve-credentials; else set --; fi
"$nsenter" "$@" "--pid=/proc/$holder/ns/pid_for_children" --no-fork -- /bin/sh -c '/bin/sh -c "echo \\$\\$"'`;

function probe(tools: NamespaceTools): boolean {
  const result = spawnSync(
    "/bin/sh",
    ["-c", PROBE_SCRIPT, "sh", tools.unshare, tools.nsenter, tools.userNamespace ? "user" : ""],
    {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: PROBE_TIMEOUT_MS,
    },
  );
  return result.status === 0 && result.stdout.trim() === "2";
}

let detected: { tools: NamespaceTools | undefined } | undefined;

/** The tools to contain terminals with, or undefined where the kernel or the system does not allow it. */
export function namespaceSupport(): NamespaceTools | undefined {
  detected ??= { tools: detect() };
  return detected.tools;
}

function detect(): NamespaceTools | undefined {
  if (process.platform !== "linux") {
    return undefined;
  }
  const unshare = findOnPath("unshare", process.env.PATH ?? "/usr/bin:/bin");
  const nsenter = findOnPath("nsenter", process.env.PATH ?? "/usr/bin:/bin");
  if (!unshare || !nsenter) {
    return undefined;
  }
  // Privileged: no user namespace (it would hide other users' files from root and stop setuid).
  const candidates = process.getuid?.() === 0 ? [false, true] : [true];
  for (const userNamespace of candidates) {
    const tools = { unshare, nsenter, userNamespace };
    if (probe(tools)) {
      return tools;
    }
  }
  return undefined;
}
