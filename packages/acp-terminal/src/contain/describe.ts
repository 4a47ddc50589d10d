import type { ContainmentMode } from "../core/types.js";

/** One line saying what keeps a host's terminals from outliving it, for a log or `--verbose`. */
export function describeContainment(mode: ContainmentMode): string {
  return mode === "pid-namespace"
    ? "containment: pid-namespace (each terminal in its own PID namespace: what its command starts dies with it, setsid or not; a watchdog kills every group if this process dies)"
    : "containment: process-group (no PID namespaces here: kill reaches the process group, and a watchdog kills every group if this process dies; a process that leaves its group with setsid can outlive its terminal)";
}
