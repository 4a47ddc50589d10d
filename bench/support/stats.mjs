/** Small statistics over samples in milliseconds (or any unit): sorted percentiles, median. */

/** The p-th percentile (0–100) of `values`, nearest rank on a sorted copy. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

export const median = (values) => percentile(values, 50);

/** `{ n, p50, p95, min, max }` of `values`. */
export function summarize(values) {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** Milliseconds on the monotonic clock of this process. */
export const now = () => performance.now();

/**
 * Wall-clock milliseconds with sub-millisecond precision, comparable across processes on the
 * same machine (each process's time origin plus its monotonic clock).
 */
export const wallMs = () => performance.timeOrigin + performance.now();
