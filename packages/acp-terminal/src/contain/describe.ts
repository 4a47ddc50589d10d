import type { ContainmentMode } from "../core/types.js";
import { launcherSupport } from "./launcher-support.js";
import { namespaceSupport } from "./namespace-support.js";

/**
 * What a TerminalHost with this `containment` option keeps its terminals in here (found out once
 * per process): see `TerminalHost.containment`.
 */
export function containmentFor(option: "auto" | "pid-namespace" | "off"): ContainmentMode {
  if (option === "pid-namespace" && namespaceSupport()) {
    return "pid-namespace";
  }
  return option !== "off" && launcherSupport() ? "process-tree" : "process-group";
}

/** One line saying what keeps a host's terminals from outliving it, for a log or `--verbose`. */
export function describeContainment(mode: ContainmentMode): string {
  switch (mode) {
    case "process-tree":
      return "containment: process-tree (each command under a subreaper relay of a launcher: kill and release reach all it started, setsid or not, and the launcher kills what is left if this process dies; pids are the machine's)";
    case "pid-namespace":
      return "containment: pid-namespace (each terminal in its own PID namespace: what its command starts dies with it, setsid or not; commands see namespace pids; a watchdog kills every group if this process dies)";
    default:
      return "containment: process-group (kill reaches the process group, and a watchdog kills every group if this process dies; a process that leaves its group with setsid can outlive its terminal)";
  }
}
