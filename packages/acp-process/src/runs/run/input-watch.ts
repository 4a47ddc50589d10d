import type { Clock } from "../../base/clock.js";
import type { InputRequired, RunRecord } from "../../model/run-record.js";
import type { TerminalProvider } from "../../providers/types.js";

/** Output must have stopped this long before the first look: a prompt is the last thing printed. */
export const INPUT_QUIET_MS = 250;
/** Looks while nothing is found: after INPUT_QUIET_MS, then doubling up to this. */
const MAX_LOOK_MS = 2000;
/** While waiting: how often to check that it still is (it may get input from elsewhere). */
const WAITING_LOOK_MS = 500;
/** Without /proc, the output's last line is taken for a prompt only after this much quiet. */
const PROMPT_QUIET_MS = 1000;
const PROMPT_MAX_CHARS = 200;

/**
 * An unterminated last line that reads as a question to the user: it ends in `?`, `:`, `>`, `$` or `#` (and
 * maybe a space), or names a password, a yes/no choice or a key to press. Used only where /proc
 * cannot say (other providers, other systems).
 */
const PROMPT_LINE =
  /(?:[?:>$#]\s?$)|password|passphrase|\[y\/n\]|\(y\/n\)|\byes\/no\b|press (?:any key|enter|return)|\(END\)$/i;

/**
 * Notices a run waiting for input: once its output has been quiet for INPUT_QUIET_MS it asks the
 * provider (`inputWait`: /proc on the local provider), and where that cannot tell, takes a
 * prompt-like last line quiet for PROMPT_QUIET_MS as one. Sets `record.inputRequired` and calls
 * `changed` on every change; output or a write clears it. Looks back off while nothing is found,
 * so a quiet server costs a few reads every 2 s. Only runs that take input (stdin open, or a PTY).
 */
export class InputWatch {
  private cancelLook: () => void = () => {};
  private nextLookAtMs = Infinity;
  private lookMs = INPUT_QUIET_MS;
  private lastOutputAtMs: number;
  private stopped = false;

  constructor(
    private readonly record: RunRecord,
    private readonly provider: TerminalProvider,
    private readonly clock: Clock,
    /** The output's last characters (the prompt is its last line). */
    private readonly snippet: () => string,
    private readonly changed: () => void,
    signal: AbortSignal,
  ) {
    this.lastOutputAtMs = clock.now();
    signal.addEventListener("abort", () => this.stop(), { once: true });
    if (record.stdin || record.pty) {
      this.schedule(INPUT_QUIET_MS);
    }
  }

  /**
   * New output: whatever it waited for, it is printing again. No timer per chunk (a flood calls
   * this thousands of times a second): the next look sees the output was recent and waits.
   */
  noteOutput(): void {
    this.lastOutputAtMs = this.clock.now();
    this.lookMs = INPUT_QUIET_MS;
    if (this.record.inputRequired) {
      this.set(null);
    }
    // A look backed off far away (a long quiet before): bring it near, once.
    if (!this.stopped && this.nextLookAtMs - this.lastOutputAtMs > 2 * INPUT_QUIET_MS) {
      this.schedule(INPUT_QUIET_MS);
    }
  }

  /** Input was written: it may read it and go on. */
  noteInput(): void {
    this.restart();
  }

  private restart(): void {
    if (this.stopped || !(this.record.stdin || this.record.pty)) {
      return;
    }
    this.set(null);
    this.lookMs = INPUT_QUIET_MS;
    this.schedule(INPUT_QUIET_MS);
  }

  private stop(): void {
    this.stopped = true;
    this.cancelLook();
  }

  private schedule(ms: number): void {
    if (!(this.record.stdin || this.record.pty)) {
      return;
    }
    this.cancelLook();
    this.nextLookAtMs = this.clock.now() + ms;
    this.cancelLook = this.clock.setTimeout(() => void this.look(), ms);
  }

  private async look(): Promise<void> {
    const terminalId = this.record.terminalId;
    if (this.stopped || !terminalId || this.record.status !== "running") {
      return;
    }
    const sinceOutputMs = this.clock.now() - this.lastOutputAtMs;
    if (sinceOutputMs < INPUT_QUIET_MS) {
      this.schedule(INPUT_QUIET_MS - sinceOutputMs);
      return;
    }
    const startedAtMs = this.lastOutputAtMs;
    const waiting = await (this.provider.inputWait?.(terminalId) ?? Promise.resolve(null)).catch(
      () => null,
    );
    // Output that arrived during the look: look again once it is quiet.
    if (this.stopped || this.lastOutputAtMs !== startedAtMs) {
      this.schedule(INPUT_QUIET_MS);
      return;
    }
    const quietMs = this.clock.now() - this.lastOutputAtMs;
    const snippet = this.snippet();
    const prompt = lastLine(snippet);
    // A guess takes only an unterminated last line: a prompt leaves the cursor after it.
    const unterminated = snippet.length > 0 && !/[\r\n]$/.test(snippet);
    if (waiting) {
      this.set({ detectedBy: "proc", how: `${waiting.command}: ${waiting.how}`, prompt });
    } else if (
      waiting === null &&
      quietMs >= PROMPT_QUIET_MS &&
      unterminated &&
      PROMPT_LINE.test(prompt)
    ) {
      this.set({ detectedBy: "prompt", prompt });
    } else if (waiting === undefined) {
      this.set(null);
    }
    this.lookMs = Math.min(MAX_LOOK_MS, this.lookMs * 2);
    // Without /proc, the next look is when the quiet makes a prompt-like line count.
    const untilPrompt =
      waiting === null && quietMs < PROMPT_QUIET_MS ? PROMPT_QUIET_MS - quietMs : this.lookMs;
    this.schedule(this.record.inputRequired ? WAITING_LOOK_MS : Math.min(this.lookMs, untilPrompt));
  }

  private set(state: Omit<InputRequired, "sinceMs"> | null): void {
    const current = this.record.inputRequired ?? null;
    if (state === null ? current === null : current !== null && current.prompt === state.prompt) {
      return;
    }
    this.record.inputRequired = state === null ? null : { sinceMs: this.clock.now(), ...state };
    this.changed();
  }
}

/** The last line with text in it, at most PROMPT_MAX_CHARS (its end). */
function lastLine(text: string): string {
  const lines = text.replace(/\r/g, "\n").split("\n");
  while (lines.length > 1 && lines.at(-1)!.trim() === "") {
    lines.pop();
  }
  return lines.at(-1)!.slice(-PROMPT_MAX_CHARS);
}
