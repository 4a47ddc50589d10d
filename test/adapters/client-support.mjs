// What the v1 and v2 recording clients share: a deadline on a request, the choice of the allow
// option, a wait for the agent to fall quiet, and the scheduling of the scenario's cancels.
import { CANCEL_AFTER_MS, LONG_LOOP_MARK } from "./dialects.mjs";

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
export function within(promise, ms, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const deadline = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return /** @type {Promise<T>} */ (Promise.race([promise, deadline])).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * The id of the option that allows once (else always, else the first option).
 * @param {Array<{ optionId: string, kind: string }>} options
 */
export function allowOption(options) {
  const chosen =
    options.find((option) => option.kind === "allow_once") ??
    options.find((option) => option.kind === "allow_always") ??
    options[0];
  if (chosen === undefined) {
    throw new Error("the permission request offers no option");
  }
  return chosen.optionId;
}

/** When the agent last sent something, and a wait for it to stop for a while. */
export class Activity {
  last = Date.now();

  touch() {
    this.last = Date.now();
  }

  /**
   * Resolves once nothing came for `quietMs`, or after `maxMs` in all.
   * @param {number} quietMs
   * @param {number} maxMs
   */
  async quiet(quietMs, maxMs) {
    const deadline = Date.now() + maxMs;
    // Quiet is a span of time: each wait runs to when it would end, re-armed by what came meanwhile.
    for (;;) {
      const wait = Math.min(this.last + quietMs, deadline) - Date.now();
      if (wait <= 0) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * Sends the scenario's cancels: each time a new command shows the long loop (a tool call or a
 * terminal whose update carries LONG_LOOP_MARK), the next cancel in `kinds` goes out
 * CANCEL_AFTER_MS later, so that the loop has printed a few lines first.
 */
export class CancelScheduler {
  /** @type {Set<string>} */
  seen = new Set();
  /** @type {Set<NodeJS.Timeout>} */
  timers = new Set();

  /**
   * @param {Array<"session" | "terminal">} kinds
   * @param {(kind: "session" | "terminal", update: Record<string, unknown>) => Promise<void>} cancel
   * @param {(update: Record<string, unknown>) => unknown} [keyOf] which command an update is about
   */
  constructor(kinds, cancel, keyOf = (update) => update.toolCallId) {
    this.kinds = [...kinds];
    this.cancel = cancel;
    this.keyOf = keyOf;
  }

  /** @param {Record<string, unknown>} update */
  see(update) {
    const key = this.keyOf(update);
    if (typeof key !== "string" || this.seen.has(key) || this.kinds.length === 0) {
      return;
    }
    if (!JSON.stringify(update).includes(LONG_LOOP_MARK)) {
      return;
    }
    this.seen.add(key);
    const kind = /** @type {"session" | "terminal"} */ (this.kinds.shift());
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.cancel(kind, update).catch((error) => {
        process.stderr.write(`  the ${kind} cancel failed: ${String(error)}\n`);
      });
    }, CANCEL_AFTER_MS);
    this.timers.add(timer);
  }

  stop() {
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    this.timers.clear();
  }
}
