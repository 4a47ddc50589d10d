import type { ResourceUsage } from "../providers/proc-usage.js";
import type { Run } from "./run.js";

/** A run's resource usage where its provider can measure it, else null and why. */
export async function runUsage(run: Run | undefined): Promise<{ usage: ResourceUsage | null; note?: string }> {
  const terminalId = run?.record.terminalId;
  if (!run || !terminalId || run.record.status !== "running") return { usage: null, note: "measured only while the command runs" };
  if (!run.provider.resourceUsage) {
    return { usage: null, note: `not measurable: commands run in the client's terminal (${run.provider.kind} provider), and ACP terminals report no process statistics` };
  }
  const usage = await run.provider.resourceUsage(terminalId);
  return usage ? { usage } : { usage: null, note: "not measurable here: read from /proc for the command's process group, on Linux only (or the command has just exited)" };
}
