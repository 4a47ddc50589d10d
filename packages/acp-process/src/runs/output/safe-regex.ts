/**
 * A small, conservative check for regular expressions that can backtrack catastrophically.
 *
 * JavaScript's regex engine backtracks; a pattern such as `(a+)+$` takes exponential time on a
 * line of `a`s that does not end the way it expects, and a watcher runs on the agent's event loop,
 * so one such pattern freezes the whole agent. Watchers come from users and models, so they are
 * checked before they are compiled. Refused:
 *
 * - a repeated group that itself contains a repeat (star height > 1): `(a+)+`, `(\w*x)*`, `(a{2,})+`;
 * - a repeated group whose alternatives can start with the same character: `(a|ab)+`, `(\w|\d)*`,
 *   `(a|)+` — the engine can split the same text between the alternatives in many ways;
 * - backreferences (`\1`, `\k<name>`): matching them is not bounded by any automaton;
 * - lookbehind of unbounded length: `(?<=a+)`;
 * - two long repeats in sequence that can match the same text: `.*a.*b`, `a*a*b`, `\d+\d+`. Each
 *   multiplies the work by the text's length (`.*a.*b` takes ~50 s on a 4096-character line of
 *   `a`s). Repeats separated by a character the first cannot match are fine: `\w+=\d+`, `a+b+`.
 *
 * "Repeat" means a quantifier that allows more than one occurrence (`*`, `+`, `{n,}`, `{n,m}` with
 * m > 1); `?` and `{0,1}` are fine anywhere. A "long" repeat allows more than `LONG_REPEAT`
 * occurrences. The check reads the pattern's syntax only, so it may refuse a pattern that is in
 * fact harmless; the message says what to simplify. What remains (one long repeat, quadratic at
 * worst) is bounded by the text each match runs over (see `WatcherLimits`).
 */
const LONG_REPEAT = 64;

export function unsafeRegexReason(source: string, flags = ""): string | null {
  const ignoreCase = flags.includes("i");
  const matchFlags = flags.replace(/[^isu]/g, "");
  const stack: Frame[] = [newFrame(false)];
  let last: Atom | null = null;
  // The last long repeat not yet separated from what follows by an atom it cannot match.
  let pending: { matcher: string | null } | undefined;
  let pendingBeforeLast = pending;
  /** Records an atom; one the pending repeat cannot match separates it from later repeats. */
  const see = (
    frame: Frame,
    spec: Omit<Atom, "repeatsInside" | "overlappingAlternatives">,
    first: string | null,
  ): Atom => {
    pendingBeforeLast = pending;
    if (pending && !shareCharacter(pending.matcher, spec.matcher, matchFlags)) {
      pending = undefined;
    }
    return atom(frame, first, { repeatsInside: false, overlappingAlternatives: false, ...spec });
  };
  for (let i = 0; i < source.length;) {
    const frame = stack[stack.length - 1]!;
    const ch = source[i]!;
    if (ch === "^" || ch === "$" || (ch === "\\" && /[bB]/.test(source[i + 1] ?? ""))) {
      last = null; // an anchor: matches no character
      i += ch === "\\" ? 2 : 1;
      continue;
    }
    if (ch === "\\") {
      const next = source[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && source[i + 2] === "<")) {
        return "a backreference (\\1, \\k<name>) can take exponential time";
      }
      const end = escapeEnd(source, i);
      last = see(frame, { matcher: source.slice(i, end) }, /[dDwWsSpP]/.test(next) ? null : next);
      i = end;
      continue;
    }
    if (ch === "[") {
      const end = classEnd(source, i);
      last = see(frame, { matcher: source.slice(i, end) }, null);
      i = end;
      continue;
    }
    if (ch === "(") {
      const lookbehind = source.startsWith("(?<=", i) || source.startsWith("(?<!", i);
      stack.push(newFrame(lookbehind));
      i += groupPrefixLength(source, i);
      last = null;
      continue;
    }
    if (ch === ")") {
      if (stack.length === 1) {
        return null; // unbalanced: the RegExp constructor reports it
      }
      const group = stack.pop()!;
      const parent = stack[stack.length - 1]!;
      if (group.lookbehind && group.unbounded) {
        return "a lookbehind of unbounded length can take quadratic time or worse";
      }
      parent.repeatsInside ||= group.repeatsInside;
      parent.unbounded ||= group.unbounded;
      pendingBeforeLast = pending;
      last = atom(parent, group.firsts.length === 1 ? (group.firsts[0] ?? null) : null, {
        repeatsInside: group.repeatsInside,
        overlappingAlternatives: group.firsts.length > 1 && overlaps(group.firsts, ignoreCase),
        matcher: null,
      });
      i += 1;
      continue;
    }
    if (ch === "|") {
      frame.firsts.push(undefined);
      frame.awaitingFirst = true;
      last = null;
      pending = undefined;
      i += 1;
      continue;
    }
    const quantifier = readQuantifier(source, i);
    if (quantifier) {
      i = quantifier.end;
      if (source[i] === "?") {
        i += 1; // lazy: same backtracking
      }
      if (!last) {
        continue;
      }
      // The atom may be absent, so it separates nothing.
      if (quantifier.min === 0) {
        pending = pendingBeforeLast;
      }
      if (!quantifier.repeats) {
        continue;
      }
      if (last.repeatsInside) {
        return "a repeated group that itself contains a repeat (nested quantifier, e.g. (a+)+)";
      }
      if (last.overlappingAlternatives) {
        return "a repeated group whose alternatives can match the same text (e.g. (a|ab)+ or (\\w|\\d)*)";
      }
      frame.repeatsInside = true;
      if (quantifier.unbounded) {
        frame.unbounded = true;
      }
      if (quantifier.max > LONG_REPEAT) {
        if (pending && shareCharacter(pending.matcher, last.matcher, matchFlags)) {
          return `two open-ended repeats that can match the same text in sequence (e.g. .*a.*b or a*a*b; keep one and bound the other, e.g. .{0,${LONG_REPEAT}}a.*b, or separate them by a character the first cannot match, e.g. \\w+=\\d+)`;
        }
        pending = { matcher: last.matcher };
      }
      last = null;
      continue;
    }
    last = see(frame, { matcher: ch === "." ? "." : escapeLiteral(ch) }, ch === "." ? null : ch);
    i += 1;
  }
  return null;
}

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
function shareCharacter(a: string | null, b: string | null, flags: string): boolean {
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

function escapeLiteral(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}

interface Frame {
  lookbehind: boolean;
  /** A repeat occurs inside this group (at any depth). */
  repeatsInside: boolean;
  /** An unbounded repeat occurs inside this group. */
  unbounded: boolean;
  /** First atom of each alternative: a literal character, null for a class/any, undefined while empty. */
  firsts: (string | null | undefined)[];
  awaitingFirst: boolean;
}

interface Atom {
  repeatsInside: boolean;
  overlappingAlternatives: boolean;
  /** Source of a single-character atom (`a`, `.`, `\w`, `[^x]`); null for a group. */
  matcher: string | null;
}

function newFrame(lookbehind: boolean): Frame {
  return {
    lookbehind,
    repeatsInside: false,
    unbounded: false,
    firsts: [undefined],
    awaitingFirst: true,
  };
}

/** Records an atom in `frame` (its first, if it opens an alternative) and returns it. */
function atom(frame: Frame, first: string | null, value: Atom): Atom {
  if (frame.awaitingFirst) {
    frame.firsts[frame.firsts.length - 1] = first;
    frame.awaitingFirst = false;
  }
  return value;
}

/** Two alternatives can start alike: an empty one, a class or `.` (could be anything), or equal literals. */
function overlaps(firsts: (string | null | undefined)[], ignoreCase: boolean): boolean {
  if (firsts.some((f) => f === undefined || f === null)) {
    return true;
  }
  const keys = firsts.map((f) => (ignoreCase ? f!.toLowerCase() : f!));
  return new Set(keys).size !== keys.length;
}

interface Quantifier {
  end: number;
  repeats: boolean;
  unbounded: boolean;
  min: number;
  max: number;
}

function readQuantifier(source: string, i: number): Quantifier | null {
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
function escapeEnd(source: string, i: number): number {
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
function classEnd(source: string, i: number): number {
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === "\\") {
      j++;
    } else if (source[j] === "]") {
      return j + 1;
    }
  }
  return source.length;
}

function groupPrefixLength(source: string, i: number): number {
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
