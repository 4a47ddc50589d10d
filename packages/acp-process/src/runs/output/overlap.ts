/**
 * For clients without cursors: how much of `next` (the client's retained tail now) was already in
 * `previous` (the tail at the last read). The client drops output from the beginning, so `next`
 * is a suffix of `previous + newOutput`; we look for the longest suffix of `previous` that is a
 * prefix of `next`. Repetitive output can make the match ambiguous; we take the longest overlap,
 * which can only under-report new text, never invent it.
 */
// Each candidate costs a comparison up to the snapshot length; bounded for periodic output.
const MAX_CANDIDATES = 32;
const HEAD_CHARS = 64;

export function overlapLength(previous: string, next: string): number {
  if (previous.length === 0 || next.length === 0) {
    return 0;
  }
  if (next.startsWith(previous)) {
    return previous.length;
  }
  const head = next.slice(0, Math.min(HEAD_CHARS, next.length));
  let from = 0;
  for (let tries = 0; tries < MAX_CANDIDATES; tries++) {
    const at = previous.indexOf(head, from);
    if (at < 0) {
      break;
    }
    if (next.startsWith(previous.slice(at))) {
      return previous.length - at;
    }
    from = at + 1;
  }
  // Overlaps shorter than the head: only the last few characters of `previous` can match.
  const shortest = Math.max(1, previous.length - head.length + 1);
  for (let at = shortest; at < previous.length; at++) {
    if (next.startsWith(previous.slice(at))) {
      return previous.length - at;
    }
  }
  return 0;
}
