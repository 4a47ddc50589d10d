import { ProcessError } from "../../base/errors.js";
import { unsafeRegexReason } from "./safe-regex.js";
import type { WatcherSpec } from "../../model/run-events.js";

export interface WatcherLimits {
  /** Watchers per run. */
  maxWatchers: number;
  /** Characters of regex source. */
  maxPatternLength: number;
  /** How far back a `stream` match may reach into earlier chunks (chars). */
  streamWindowChars: number;
  /** A `line` longer than this is tested on its first `maxLineChars` characters. */
  maxLineChars: number;
}

export const DEFAULT_WATCHER_LIMITS: WatcherLimits = {
  maxWatchers: 16,
  maxPatternLength: 512,
  streamWindowChars: 4096,
  // Both bound the text one match runs over, and so the time a pattern that backtracks
  // polynomially (`.*a.*b`) can take; exponential patterns are refused at add().
  maxLineChars: 4096,
};

export interface WatchHit {
  watcherId: string;
  event: string;
  match: string;
}

interface Watcher {
  id: string;
  /** The spec with its defaults filled in. */
  spec: { [K in keyof WatcherSpec]-?: NonNullable<WatcherSpec[K]> };
  regex: RegExp;
}

/**
 * Regex watchers over one run's output. Line watchers see each complete line (reassembled across
 * chunks); stream watchers see a sliding window, so a match split over two chunks is found, and
 * each match is reported once.
 */
export class WatcherSet {
  private watchers: Watcher[] = [];
  private nextId = 0;
  private partialLine = "";
  private window = "";
  /** Absolute char offset of `window[0]` and of the end of the last stream match reported. */
  private windowStart = 0;
  private lastStreamMatchEnd = new Map<string, number>();

  constructor(private readonly limits: WatcherLimits = DEFAULT_WATCHER_LIMITS) {}

  get size(): number {
    return this.watchers.length;
  }

  add(spec: WatcherSpec): string {
    if (this.watchers.length >= this.limits.maxWatchers) {
      throw new ProcessError(
        "limit_reached",
        `A run can have at most ${this.limits.maxWatchers} watchers; remove one first`,
      );
    }
    if (
      typeof spec.regex !== "string" ||
      spec.regex.length === 0 ||
      spec.regex.length > this.limits.maxPatternLength
    ) {
      throw ProcessError.invalidParams(
        "watch.regex",
        `a pattern of 1..${this.limits.maxPatternLength} characters`,
        spec.regex,
      );
    }
    const flags = spec.flags ?? "";
    if (!/^[imsu]*$/.test(flags)) {
      throw ProcessError.invalidParams("watch.flags", "some of i, m, s, u", flags);
    }
    const unsafe = unsafeRegexReason(spec.regex, flags);
    if (unsafe !== null) {
      throw new ProcessError(
        "invalid_params",
        `Invalid watch.regex ${JSON.stringify(spec.regex)}: refused ${unsafe}, which could freeze the agent on some output; ` +
          "use a simpler pattern without a repeat inside a repeated group (e.g. a+ instead of (a+)+, (?:ab)+ instead of (a|ab)+)",
      );
    }
    let regex: RegExp;
    try {
      regex = new RegExp(spec.regex, `${flags}g`);
    } catch (error) {
      throw ProcessError.invalidParams(
        "watch.regex",
        "a valid JavaScript regular expression",
        spec.regex,
      );
    }
    const id = `w${this.nextId++}`;
    // A stream watcher sees output from now on, not what is already in the window.
    this.lastStreamMatchEnd.set(id, this.windowStart + this.window.length);
    this.watchers.push({
      id,
      regex,
      spec: {
        regex: spec.regex,
        flags,
        event: spec.event ?? spec.regex,
        once: spec.once ?? false,
        scope: spec.scope ?? "line",
      },
    });
    return id;
  }

  remove(id: string): boolean {
    const before = this.watchers.length;
    this.watchers = this.watchers.filter((w) => w.id !== id);
    this.lastStreamMatchEnd.delete(id);
    return this.watchers.length !== before;
  }

  /** Feeds new output; returns stream hits, then line hits. `final` flushes an unterminated last line. */
  feed(text: string, final = false): WatchHit[] {
    const hits: WatchHit[] = [];
    if (this.watchers.length === 0) {
      this.track(text);
      return hits;
    }
    this.feedStream(text, final, hits);
    this.feedLines(text, final, hits);
    return hits;
  }

  private track(text: string): void {
    // Keep window and line state current so watchers added later start from a sane state: only
    // the last streamWindowChars matter then (no copy of a large chunk per append).
    const seen = this.windowStart + this.window.length + text.length;
    const keep = this.limits.streamWindowChars;
    this.window =
      text.length >= keep ? text.slice(text.length - keep) : (this.window + text).slice(-keep);
    this.windowStart = seen - this.window.length;
    const lastNewline = text.lastIndexOf("\n");
    this.partialLine =
      lastNewline < 0
        ? clip(this.partialLine + text, this.limits.maxLineChars)
        : clip(text.slice(lastNewline + 1), this.limits.maxLineChars);
  }

  private appendWindow(text: string): void {
    this.window += text;
    const excess = this.window.length - this.limits.streamWindowChars - text.length;
    if (excess > 0) {
      this.window = this.window.slice(excess);
      this.windowStart += excess;
    }
  }

  /**
   * Stream scope. Everything before a watcher's floor (the end of its last match, or where it was
   * added) has been dealt with. A match that ends at the end of the output seen so far is held back
   * until more output arrives or the output is final, since more text could extend it: `\d+` over
   * "build 12" + "3 done" reports "123", as over the whole text.
   */
  private feedStream(text: string, final: boolean, hits: WatchHit[]): void {
    this.appendWindow(text);
    const windowEnd = this.windowStart + this.window.length;
    for (const watcher of [...this.watchers]) {
      if (watcher.spec.scope !== "stream") {
        continue;
      }
      const floor = Math.max(this.lastStreamMatchEnd.get(watcher.id) ?? 0, this.windowStart);
      watcher.regex.lastIndex = floor - this.windowStart;
      for (const m of this.window.matchAll(watcher.regex)) {
        const start = this.windowStart + m.index;
        const end = start + m[0].length;
        if (start < floor || m[0].length === 0) {
          continue;
        }
        if (end === windowEnd && !final) {
          break; // could grow with the next chunk
        }
        this.lastStreamMatchEnd.set(watcher.id, end);
        hits.push({ watcherId: watcher.id, event: watcher.spec.event, match: m[0] });
        if (watcher.spec.once) {
          this.remove(watcher.id);
          break;
        }
      }
    }
  }

  private feedLines(text: string, final: boolean, hits: WatchHit[]): void {
    const parts = (this.partialLine + text).split("\n");
    this.partialLine = clip(parts.pop() ?? "", this.limits.maxLineChars);
    if (final && this.partialLine.length > 0) {
      parts.push(this.partialLine);
      this.partialLine = "";
    }
    for (const rawLine of parts) {
      const line = clip(
        rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine,
        this.limits.maxLineChars,
      );
      for (const watcher of [...this.watchers]) {
        if (watcher.spec.scope !== "line") {
          continue;
        }
        watcher.regex.lastIndex = 0;
        const m = watcher.regex.exec(line);
        if (!m) {
          continue;
        }
        hits.push({ watcherId: watcher.id, event: watcher.spec.event, match: m[0] });
        if (watcher.spec.once) {
          this.remove(watcher.id);
        }
      }
    }
  }
}

function clip(text: string, maxChars: number): string {
  return text.length > maxChars ? text.slice(0, maxChars) : text;
}
