// The pieces of JavaScript regex syntax that safe-regex.ts reads: quantifiers, escapes, classes,
// group openers, and whether two single-character atoms can match the same character.

/** Characters tried when comparing two single-character atoms: Latin-1 and a few beyond. */
const SAMPLE = [
  ...Array.from({ length: 0x250 }, (_, code) => String.fromCharCode(code)),
  "\u2028",
  "\u3042",
  "\u{1F600}",
];

/**
 * Whether two single-character atoms (sources such as `a`, `.`, `\w`, `[^x]`; null = a group,
 * anything) can match the same character, judged on a sample. Disjoint atoms cannot split the
 * same text between them, so repeats of them backtrack linearly.
 */
export function shareCharacter(a: string | null, b: string | null, flags: string): boolean {
  if (a === null || b === null) {
    return true;
  }
  try {
    const left = new RegExp(`^(?:${a})$`, flags);
    const right = new RegExp(`^(?:${b})$`, flags);
    return SAMPLE.some((ch) => left.test(ch) && right.test(ch));
  } catch {
    return true; // not compilable alone (e.g. an escape only valid in context): assume they can
  }
}

export function escapeLiteral(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}

export interface Quantifier {
  end: number;
  repeats: boolean;
  unbounded: boolean;
  min: number;
  max: number;
}

export function readQuantifier(source: string, i: number): Quantifier | null {
  const ch = source[i];
  if (ch === "*" || ch === "+") {
    return { end: i + 1, repeats: true, unbounded: true, min: ch === "*" ? 0 : 1, max: Infinity };
  }
  if (ch === "?") {
    return { end: i + 1, repeats: false, unbounded: false, min: 0, max: 1 };
  }
  if (ch !== "{") {
    return null;
  }
  const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
  if (!m) {
    return null;
  }
  const max = m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3]);
  return {
    end: i + m[0].length,
    repeats: max > 1,
    unbounded: max === Infinity,
    min: Number(m[1]),
    max,
  };
}

/** Index after the escape at `i` (`\x41`, `\u{1F600}`, `\p{L}` are one atom). */
export function escapeEnd(source: string, i: number): number {
  const next = source[i + 1];
  if ((next === "p" || next === "P" || next === "u") && source[i + 2] === "{") {
    const close = source.indexOf("}", i + 3);
    return close < 0 ? source.length : close + 1;
  }
  if (next === "u") {
    return i + 6;
  }
  if (next === "x") {
    return i + 4;
  }
  if (next === "c") {
    return i + 3;
  }
  return i + 2;
}

/** Index after the character class opening at `i` (in JavaScript the first unescaped `]` closes it). */
export function classEnd(source: string, i: number): number {
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === "\\") {
      j++;
    } else if (source[j] === "]") {
      return j + 1;
    }
  }
  return source.length;
}

export function groupPrefixLength(source: string, i: number): number {
  if (source[i + 1] !== "?") {
    return 1;
  }
  if (source.startsWith("(?<=", i) || source.startsWith("(?<!", i)) {
    return 4;
  }
  if (source.startsWith("(?<", i)) {
    const close = source.indexOf(">", i);
    return close < 0 ? 3 : close - i + 1;
  }
  return 3; // (?: (?= (?!
}
