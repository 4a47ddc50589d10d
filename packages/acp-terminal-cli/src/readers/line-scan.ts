/**
 * Reading a JSON-RPC line's structure from its bytes, without decoding its bulk: where the string
 * value at a key path lies, and the rest of the line parsed without it. The fast lanes use it to
 * take a chunk notification's data straight from the bytes (chunk-line.ts, v1-meta-lane.ts).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The byte span (between its quotes) of the string value at `path` (the keys from the outermost
 * object: `keyPath("params", "update", "data")`), found by walking the line's structure: strings
 * are skipped with indexOf and keys compared as bytes (an escaped key never matches), so the value
 * costs a native scan, and nothing is allocated but the walk's two stacks. Undefined when there
 * is no such string, or two, or it holds an escape and `escapes` is false.
 */
export function stringSpan(
  line: Buffer,
  path: readonly Buffer[],
  escapes: boolean,
): { start: number; end: number } | undefined {
  /**
   * Per open container: how many of `path`'s keys lead to it (-1: it is off the path), and
   * whether it is an object. The outermost object leads to none.
   */
  const matched: number[] = [];
  const objects: boolean[] = [];
  let expectKey = false;
  /** The key just read leads on along the path (its value is the next container or the string). */
  let onPath = false;
  let found: { start: number; end: number } | undefined;
  for (let i = 0; i < line.length; i++) {
    const byte = line[i]!;
    if (byte === QUOTE) {
      const end = stringEnd(line, i + 1);
      if (end === -1) {
        return undefined;
      }
      const depth = matched.length > 0 ? matched[matched.length - 1]! : -1;
      if (expectKey) {
        const segment = depth >= 0 && depth < path.length ? path[depth] : undefined;
        onPath =
          segment !== undefined && line.compare(segment, 0, segment.length, i + 1, end) === 0;
        expectKey = false;
      } else if (onPath && depth === path.length - 1) {
        const escaped = line.indexOf(BACKSLASH, i + 1);
        if ((!escapes && escaped !== -1 && escaped < end) || found !== undefined) {
          return undefined;
        }
        found = { start: i + 1, end };
        onPath = false;
      }
      i = end;
    } else if (byte === 0x7b || byte === 0x5b) {
      // { or [
      const parent = matched.length > 0 ? matched[matched.length - 1]! : -1;
      matched.push(matched.length === 0 ? 0 : onPath && byte === 0x7b ? parent + 1 : -1);
      objects.push(byte === 0x7b);
      onPath = false;
      expectKey = byte === 0x7b;
    } else if (byte === 0x7d || byte === 0x5d) {
      // } ]
      matched.pop();
      objects.pop();
      onPath = false;
    } else if (byte === 0x2c) {
      // ,
      onPath = false;
      expectKey = objects[objects.length - 1] === true;
    }
  }
  return found;
}

/** A key path as `stringSpan` takes it: `["params", "update", "data"]`. */
export function keyPath(...keys: string[]): readonly Buffer[] {
  return keys.map((key) => Buffer.from(key));
}

/** The line parsed with the span's string emptied (small: the bulk is not decoded), or undefined. */
export function withoutSpan(
  line: Buffer,
  span: { start: number; end: number },
): object | undefined {
  try {
    const value: unknown = JSON.parse(
      Buffer.concat([line.subarray(0, span.start), line.subarray(span.end)]).toString("utf8"),
    );
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The index of the quote that ends the string whose contents start at `from`, or -1. */
export function stringEnd(line: Buffer, from: number): number {
  let at = line.indexOf(QUOTE, from);
  while (at !== -1) {
    let backslashes = 0;
    for (let j = at - 1; j >= from && line[j] === BACKSLASH; j--) {
      backslashes++;
    }
    if (backslashes % 2 === 0) {
      return at;
    }
    at = line.indexOf(QUOTE, at + 1);
  }
  return -1;
}
