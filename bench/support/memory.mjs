/** Resident memory of this process: forced collections, a sampler, and VmHWM. */
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc");

export const MB = 1_000_000;
export const MiB = 1024 * 1024;

/** Runs full garbage collections, so an RSS taken after it starts from a settled heap. */
export function gc() {
  collect();
  collect();
}

export const rss = () => process.memoryUsage.rss();

/** The process's peak resident set so far (VmHWM), in bytes; undefined off Linux. */
export function vmHwm() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined; // no procfs: the sampler's peak is what we have
  }
}

/**
 * Samples RSS every `intervalMs` (timers run between the I/O callbacks of the work measured);
 * `sample()` adds one now. `stop()` returns the start value, the peak and the growth.
 */
export function rssSampler(intervalMs = 5) {
  const start = rss();
  let peak = start;
  const sample = () => {
    const value = rss();
    if (value > peak) peak = value;
    return value;
  };
  const timer = setInterval(sample, intervalMs);
  return {
    sample,
    stop() {
      clearInterval(timer);
      sample();
      return { start, peak, growth: peak - start };
    },
  };
}
