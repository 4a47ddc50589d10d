import type { ResourceUsage } from "../providers/proc-usage.js";
import type { TerminalProvider } from "../providers/types.js";
import type { Run } from "./run.js";

/** How often a running command's resources are sampled (where the provider can measure them): a sample reads /proc/<pid>/stat of every process on the machine (~24 ms with 110 processes on a loaded 2-core box). */
export const USAGE_SAMPLE_MS = 2000;

/**
 * A new sample of the command's process group, its peak memory carried over from `previous` (the
 * group's members change; the peak is the largest figure any sample saw). Null: not measurable now.
 */
export async function sampleUsage(provider: TerminalProvider, terminalId: string, previous: ResourceUsage | null): Promise<ResourceUsage | null> {
  if (!provider.resourceUsage) return null;
  let usage: ResourceUsage | null;
  try {
    usage = await provider.resourceUsage(terminalId);
  } catch {
    return null; // the terminal went away between the check and the read
  }
  if (!usage) return null;
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

/**
 * A run's resource usage: sampled now while it runs (where its provider can measure it), else the
 * last sample taken while it ran, else null and why.
 */
export async function runUsage(run: Run | undefined): Promise<{ usage: ResourceUsage | null; note?: string }> {
  if (!run) return { usage: null, note: "measured only while the command runs" };
  if (!run.provider.resourceUsage) {
    return { usage: null, note: `not measurable: commands run in the client's terminal (${run.provider.kind} provider), and ACP terminals report no process statistics` };
  }
  await run.takeUsageSample();
  const usage = run.record.resourceUsage ?? null;
  if (usage) return { usage };
  if (run.record.status !== "running") return { usage: null, note: "no sample was taken while the command ran (it never started, or ended before the first sample)" };
  return { usage: null, note: "not measurable here: read from /proc for the command's process group, on Linux only (or the command has just exited)" };
}
