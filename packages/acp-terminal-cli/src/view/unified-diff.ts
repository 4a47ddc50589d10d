/** Edits (lines added plus removed) a diff looks for at most; more differing texts are shown whole. */
const MAX_EDITS = 1000;
/** Lines of each text diffed at most; longer texts are shown by their line counts only. */
export const MAX_DIFF_TEXT_LINES = 20_000;
/** Unchanged lines shown around each change. */
const CONTEXT = 3;

type Op = { kind: " " | "-" | "+"; line: string };

/**
 * The lines of a unified diff between two texts (`@@ -a,b +c,d @@`, then ` `, `-` and `+` lines,
 * three lines of context), from Myers' O(ND) difference algorithm on the lines left once the
 * common head and tail are taken off. Bounded: beyond MAX_EDITS edits, the differing middle is
 * shown as all removed then all added; texts over MAX_DIFF_TEXT_LINES are not diffed (undefined).
 */
export function unifiedDiff(before: string, after: string): string[] | undefined {
  const a = linesOf(before);
  const b = linesOf(after);
  if (a.length > MAX_DIFF_TEXT_LINES || b.length > MAX_DIFF_TEXT_LINES) {
    return undefined;
  }
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) {
    head++;
  }
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const middle = myers(middleA, middleB) ?? [
    ...middleA.map((line) => ({ kind: "-" as const, line })),
    ...middleB.map((line) => ({ kind: "+" as const, line })),
  ];
  const ops: Op[] = [
    ...a.slice(0, head).map((line) => ({ kind: " " as const, line })),
    ...middle,
    ...a.slice(a.length - tail).map((line) => ({ kind: " " as const, line })),
  ];
  return hunks(ops);
}

function linesOf(text: string): string[] {
  if (text === "") {
    return [];
  }
  const lines = text.split("\n");
  if (lines.at(-1) === "") {
    lines.pop();
  }
  return lines;
}

/** The shortest edit script from `a` to `b`, or undefined past MAX_EDITS edits. */
function myers(a: readonly string[], b: readonly string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(MAX_EDITS, n + m);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        return backtrack(a, b, trace, offset, d);
      }
    }
  }
  return undefined;
}

/** Walks the saved frontiers back from the end: the edits, in order. */
function backtrack(
  a: readonly string[],
  b: readonly string[],
  trace: readonly Int32Array[],
  offset: number,
  edits: number,
): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = edits; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const previousK = down ? k + 1 : k - 1;
    const previousX = v[offset + previousK]!;
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      ops.push({ kind: " ", line: a[--x]! });
      y--;
    }
    if (down) {
      ops.push({ kind: "+", line: b[--y]! });
    } else {
      ops.push({ kind: "-", line: a[--x]! });
    }
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: " ", line: a[--x]! });
    y--;
  }
  return ops.reverse();
}

/** The edit script as hunks: changed lines with CONTEXT lines around, under `@@` headers. */
function hunks(ops: readonly Op[]): string[] {
  // Lines of each text before each op, for the hunks' line numbers.
  const inA = new Int32Array(ops.length + 1);
  const inB = new Int32Array(ops.length + 1);
  ops.forEach((op, i) => {
    inA[i + 1] = inA[i]! + (op.kind === "+" ? 0 : 1);
    inB[i + 1] = inB[i]! + (op.kind === "-" ? 0 : 1);
  });
  const changed = ops.flatMap((op, index) => (op.kind === " " ? [] : [index]));
  const out: string[] = [];
  let index = 0;
  while (index < changed.length) {
    const start = Math.max(0, changed[index]! - CONTEXT);
    let end = Math.min(ops.length, changed[index]! + CONTEXT + 1);
    while (index + 1 < changed.length && changed[index + 1]! - CONTEXT <= end) {
      index++;
      end = Math.min(ops.length, changed[index]! + CONTEXT + 1);
    }
    index++;
    const countA = inA[end]! - inA[start]!;
    const countB = inB[end]! - inB[start]!;
    const fromA = inA[start]! + (countA > 0 ? 1 : 0);
    const fromB = inB[start]! + (countB > 0 ? 1 : 0);
    out.push(`@@ -${fromA},${countA} +${fromB},${countB} @@`);
    for (const op of ops.slice(start, end)) {
      out.push(`${op.kind}${op.line}`);
    }
  }
  return out;
}
