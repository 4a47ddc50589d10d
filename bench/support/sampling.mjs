/**
 * Timing loops that share the machine's noise fairly: the variants being compared run in
 * alternating batches, and the first batches of each are warm-up.
 */
import { now } from "./stats.mjs";

/**
 * Runs every variant `warmup + iterations` times, `batch` at a time in turn, and returns the
 * measured durations (ms) of each after its warm-up, keyed like `variants`.
 * A variant is `async () => void` (timed whole) or `async () => number` (it returns its own ms).
 */
export async function alternate(variants, { warmup = 20, iterations = 200, batch = 10 } = {}) {
  const names = Object.keys(variants);
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  const total = warmup + iterations;
  for (let done = 0; done < total; done += batch) {
    for (const name of names) {
      for (let i = done; i < Math.min(total, done + batch); i++) {
        const started = now();
        const own = await variants[name]();
        const ms = typeof own === "number" ? own : now() - started;
        if (i >= warmup) samples[name].push(ms);
      }
    }
  }
  return samples;
}
