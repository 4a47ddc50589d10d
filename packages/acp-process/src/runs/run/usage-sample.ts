import { repeatOnClock, type Clock } from "../../base/clock.js";
import type { ResourceUsage } from "../../providers/proc-usage.js";
import type { TerminalProvider } from "../../providers/types.js";
import type { RunRecord } from "../../model/run-record.js";

/** How often a running command's resources are sampled (where the provider can measure them): a sample reads /proc/<pid>/stat of every process on the machine (~24 ms with 110 processes on a loaded 2-core box). */
export const USAGE_SAMPLE_MS = 2000;

/**
 * The first sample, this long after the start: most commands have ended by then and never pay for
 * a scan of /proc (one at the start cost a short command such as `true` ~15 ms of its latency),
 * while a command that runs on is measured once it has done something worth measuring.
 */
export const FIRST_USAGE_SAMPLE_MS = 250;

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

/**
 * A running command's resource samples: one at a time (/proc is read for every process on the
 * machine, and a manual clock moved by hours fires thousands of ticks at once), the first
 * FIRST_USAGE_SAMPLE_MS after the start, then every USAGE_SAMPLE_MS on the clock until `signal`
 * aborts; the last sample stays in `record`.
 */
export class UsageSampler {
  private sampling: Promise<void> | null = null;

  constructor(
    private readonly record: RunRecord,
    private readonly provider: TerminalProvider,
    private readonly isRunning: () => boolean,
  ) {}

  /** Samples now (where the provider can); the last sample outlives the run. */
  take(): Promise<void> {
    this.sampling ??= this.sampleNow().finally(() => (this.sampling = null));
    return this.sampling;
  }

  /** Samples FIRST_USAGE_SAMPLE_MS from now, then every USAGE_SAMPLE_MS until `signal` aborts. */
  start(clock: Clock, signal: AbortSignal): void {
    if (!this.provider.resourceUsage) {
      return;
    }
    let stop = clock.setTimeout(() => {
      void this.take();
      stop = repeatOnClock(clock, USAGE_SAMPLE_MS, () => void this.take());
    }, FIRST_USAGE_SAMPLE_MS);
    signal.addEventListener("abort", () => stop(), { once: true });
  }

  private async sampleNow(): Promise<void> {
    const terminalId = this.record.terminalId;
    if (!terminalId || !this.isRunning()) {
      return;
    }
    const sample = await sampleUsage(this.provider, terminalId, this.record.resourceUsage ?? null);
    if (sample) {
      this.record.resourceUsage = sample;
    }
  }
}
