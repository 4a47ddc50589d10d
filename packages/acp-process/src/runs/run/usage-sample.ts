import type { ResourceUsage } from "../../providers/proc-usage.js";
import type { TerminalProvider } from "../../providers/types.js";

/** How often a running command's resources are sampled (where the provider can measure them): a sample reads /proc/<pid>/stat of every process on the machine (~24 ms with 110 processes on a loaded 2-core box). */
export const USAGE_SAMPLE_MS = 2000;

/**
 * A new sample of the command's process group, its peak memory carried over from `previous` (the
 * group's members change; the peak is the largest figure any sample saw). Null: not measurable now.
 */
export async function sampleUsage(
  provider: TerminalProvider,
  terminalId: string,
  previous: ResourceUsage | null,
): Promise<ResourceUsage | null> {
  if (!provider.resourceUsage) {
    return null;
  }
  let usage: ResourceUsage | null;
  try {
    usage = await provider.resourceUsage(terminalId);
  } catch {
    return null; // the terminal went away between the check and the read
  }
  if (!usage) {
    return null;
  }
  const peak = Math.max(usage.memoryPeakBytes, usage.rssBytes, previous?.memoryPeakBytes ?? 0);
  return {
    ...usage,
    memoryPeakBytes: peak,
    // Members that exited took their CPU and I/O with them: never report less than before.
    cpuUserMs: Math.max(usage.cpuUserMs, previous?.cpuUserMs ?? 0),
    cpuSystemMs: Math.max(usage.cpuSystemMs, previous?.cpuSystemMs ?? 0),
    ioReadBytes: Math.max(usage.ioReadBytes, previous?.ioReadBytes ?? 0),
    ioWriteBytes: Math.max(usage.ioWriteBytes, previous?.ioWriteBytes ?? 0),
  };
}
