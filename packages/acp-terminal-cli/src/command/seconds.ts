/** The longest delay setTimeout honours (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A flag's positive number of seconds as milliseconds, undefined when absent, or an error message. */
export function parseSeconds(flag: string, value: string | undefined): number | string | undefined {
  if (value === undefined) {
    return undefined;
  }
  const ms = Math.round(Number(value) * 1000);
  // Below 1 ms rounds to no time at all (0.0001).
  if (value.trim() === "" || !Number.isFinite(ms) || ms < 1) {
    return `Invalid ${flag}: expected a positive number of seconds, received ${JSON.stringify(value)}`;
  }
  // Node fires a longer timer at once (TimeoutOverflowWarning): a huge value must not mean "now".
  if (ms > MAX_TIMER_MS) {
    return `Invalid ${flag}: at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds, received ${JSON.stringify(value)}`;
  }
  return ms;
}
