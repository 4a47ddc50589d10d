import {
  classEnd,
  escapeEnd,
  escapeLiteral,
  groupPrefixLength,
  readQuantifier,
  shareCharacter,
  type Quantifier,
} from "./regex-syntax.js";

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
  return new RegexScan(source, flags).verdict();
}

/**
 * One left-to-right pass over a pattern. `stack` holds the open groups (the pattern itself at the
 * bottom), `last` the atom a quantifier would repeat, and `pending` the last long repeat that no
 * atom it cannot match has separated from what follows yet.
 */
class RegexScan {
  private readonly ignoreCase: boolean;
  private readonly matchFlags: string;
  private readonly stack: Frame[] = [newFrame(false)];
  private i = 0;
  private last: Atom | null = null;
  private pending: { matcher: string | null } | undefined;
  /** `pending` as it was before `last`: restored when `last` turns out optional. */
  private pendingBeforeLast: { matcher: string | null } | undefined;

  constructor(
    private readonly source: string,
    flags: string,
  ) {
    this.ignoreCase = flags.includes("i");
    this.matchFlags = flags.replace(/[^isu]/g, "");
  }

  /** Why the pattern is refused, or null. */
  verdict(): string | null {
    while (this.i < this.source.length) {
      const verdict = this.step();
      if (verdict !== undefined) {
        return verdict;
      }
    }
    return null;
  }

  /** Reads one token: a verdict ends the scan (null: nothing more to judge), undefined goes on. */
  private step(): string | null | undefined {
    const { source, i } = this;
    const ch = source[i]!;
    if (ch === "^" || ch === "$" || (ch === "\\" && /[bB]/.test(source[i + 1] ?? ""))) {
      this.last = null; // an anchor: matches no character
      this.i += ch === "\\" ? 2 : 1;
      return undefined;
    }
    if (ch === "\\") {
      return this.escape();
    }
    if (ch === "[") {
      const end = classEnd(source, i);
      this.last = this.see({ matcher: source.slice(i, end) }, null);
      this.i = end;
      return undefined;
    }
    if (ch === "(") {
      const lookbehind = source.startsWith("(?<=", i) || source.startsWith("(?<!", i);
      this.stack.push(newFrame(lookbehind));
      this.i += groupPrefixLength(source, i);
      this.last = null;
      return undefined;
    }
    if (ch === ")") {
      return this.closeGroup();
    }
    if (ch === "|") {
      const frame = this.frame();
      frame.firsts.push(undefined);
      frame.awaitingFirst = true;
      this.last = null;
      this.pending = undefined;
      this.i += 1;
      return undefined;
    }
    const quantifier = readQuantifier(source, i);
    if (quantifier) {
      return this.quantify(quantifier);
    }
    this.last = this.see({ matcher: ch === "." ? "." : escapeLiteral(ch) }, ch === "." ? null : ch);
    this.i += 1;
    return undefined;
  }

  private frame(): Frame {
    return this.stack[this.stack.length - 1]!;
  }

  /** Records an atom; one the pending repeat cannot match separates it from later repeats. */
  private see(
    spec: Omit<Atom, "repeatsInside" | "overlappingAlternatives">,
    first: string | null,
  ): Atom {
    this.pendingBeforeLast = this.pending;
    if (this.pending && !shareCharacter(this.pending.matcher, spec.matcher, this.matchFlags)) {
      this.pending = undefined;
    }
    return atom(this.frame(), first, {
      repeatsInside: false,
      overlappingAlternatives: false,
      ...spec,
    });
  }

  private escape(): string | undefined {
    const { source, i } = this;
    const next = source[i + 1] ?? "";
    if (/[1-9]/.test(next) || (next === "k" && source[i + 2] === "<")) {
      return "a backreference (\\1, \\k<name>) can take exponential time";
    }
    const end = escapeEnd(source, i);
    this.last = this.see({ matcher: source.slice(i, end) }, /[dDwWsSpP]/.test(next) ? null : next);
    this.i = end;
    return undefined;
  }

  private closeGroup(): string | null | undefined {
    if (this.stack.length === 1) {
      return null; // unbalanced: the RegExp constructor reports it
    }
    const group = this.stack.pop()!;
    const parent = this.frame();
    if (group.lookbehind && group.unbounded) {
      return "a lookbehind of unbounded length can take quadratic time or worse";
    }
    parent.repeatsInside ||= group.repeatsInside;
    parent.unbounded ||= group.unbounded;
    this.pendingBeforeLast = this.pending;
    this.last = atom(parent, group.firsts.length === 1 ? (group.firsts[0] ?? null) : null, {
      repeatsInside: group.repeatsInside,
      overlappingAlternatives: group.firsts.length > 1 && overlaps(group.firsts, this.ignoreCase),
      matcher: null,
    });
    this.i += 1;
    return undefined;
  }

  private quantify(quantifier: Quantifier): string | undefined {
    this.i = quantifier.end;
    if (this.source[this.i] === "?") {
      this.i += 1; // lazy: same backtracking
    }
    const last = this.last;
    if (!last) {
      return undefined;
    }
    // The atom may be absent, so it separates nothing.
    if (quantifier.min === 0) {
      this.pending = this.pendingBeforeLast;
    }
    if (!quantifier.repeats) {
      return undefined;
    }
    if (last.repeatsInside) {
      return "a repeated group that itself contains a repeat (nested quantifier, e.g. (a+)+)";
    }
    if (last.overlappingAlternatives) {
      return "a repeated group whose alternatives can match the same text (e.g. (a|ab)+ or (\\w|\\d)*)";
    }
    const frame = this.frame();
    frame.repeatsInside = true;
    if (quantifier.unbounded) {
      frame.unbounded = true;
    }
    if (quantifier.max > LONG_REPEAT) {
      if (this.pending && shareCharacter(this.pending.matcher, last.matcher, this.matchFlags)) {
        return `two open-ended repeats that can match the same text in sequence (e.g. .*a.*b or a*a*b; keep one and bound the other, e.g. .{0,${LONG_REPEAT}}a.*b, or separate them by a character the first cannot match, e.g. \\w+=\\d+)`;
      }
      this.pending = { matcher: last.matcher };
    }
    this.last = null;
    return undefined;
  }
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
