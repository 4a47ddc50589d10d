import type { ResourceUsage } from "../../providers/proc-usage.js";
import type { Run } from "../run/run.js";

/**
 * A run's resource usage: sampled now while it runs (where its provider can measure it), else the
 * last sample taken while it ran, else null and why.
 */
export async function runUsage(
  run: Run | undefined,
): Promise<{ usage: ResourceUsage | null; note?: string }> {
  if (!run) {
    return { usage: null, note: "measured only while the command runs" };
  }
  if (!run.provider.resourceUsage) {
    return {
      usage: null,
      note: `not measurable: commands run in the client's terminal (${run.provider.kind} provider), and ACP terminals report no process statistics`,
    };
  }
  await run.takeUsageSample();
  const usage = run.record.resourceUsage ?? null;
  if (usage) {
    return { usage };
  }
  if (run.record.status !== "running") {
    return {
      usage: null,
      note: "no sample was taken while the command ran (it never started, or ended before the first sample)",
    };
  }
  return {
    usage: null,
    note: "not measurable here: read from /proc for the command's process group, on Linux only (or the command has just exited)",
  };
}
