import { createInterface, emitKeypressEvents, type Interface } from "node:readline";
import { PassThrough } from "node:stream";
import type { TypedHistory } from "../state/typed-history.js";
import { MAX_HISTORY_LINES } from "../state/typed-history.js";
import { KeyLine, type Key } from "./key-line.js";
import type { PromptSource } from "./prompts.js";

/** Lines queued during a turn at most (more are refused with a notice). */
export const MAX_QUEUED_LINES = 16;
/** Bracketed paste on and off (xterm): a paste comes between ESC[200~ and ESC[201~. */
const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";

/**
 * Where the keys go: readline's prompt between turns, the line typed during a turn (queued on
 * Enter), the answer to a question, or nowhere (suspended for a terminal login, or closed).
 */
type Mode = "idle" | "prompt" | "turn" | "question" | "suspended" | "closed";

export interface TtyInputOptions {
  /** A TTY: raw mode while the session lasts. */
  stdin: NodeJS.ReadStream;
  stderr: NodeJS.WriteStream;
  /** What was typed before, with this agent; saved after each prompt. */
  history?: TypedHistory | undefined;
  /** A line for the person (a queued line, a dropped queue). */
  notice: (line: string) => void;
  /** The line typed during a turn, each time it changes ("" once submitted or cleared). */
  typing?: (text: string) => void;
}

/**
 * The person's keyboard during an interactive session, one owner for the TTY in raw mode:
 * - between turns, Node's `readline` prompts `› ` with line editing and the history typed before
 *   with this agent; a bracketed paste, or lines ending in `\`, make one prompt of many lines;
 *   Ctrl-C clears what is typed, and on an empty line ends the session, as Ctrl-D does;
 * - during a turn, a line typed and entered is queued (said with a notice) and sent when the turn
 *   ends; Up on an empty line takes the last queued line back to edit; Ctrl-C clears the line
 *   typed, and on an empty line interrupts (`onInterrupt`: the conversation cancels the turn);
 *   a cancelled turn's queue is not sent: it goes to the history, where Up finds it;
 * - while a question is shown (`questionOpened`), the line typed answers it: it is echoed and
 *   written to `answers`, the stream the questions read.
 */
export class TtyInput implements PromptSource {
  readonly interactive = true;
  /** The answers to questions, a line each: what the CLI's questions read as their TTY's stdin. */
  readonly answers: PassThrough & { isTTY: true };
  /** Ctrl-C on an empty line during a turn or a question. */
  onInterrupt: () => void = () => undefined;
  #mode: Mode = "idle";
  #questions = 0;
  #pasting = false;
  readonly #queue: string[] = [];
  readonly #turnLine = new KeyLine();
  readonly #answerLine = new KeyLine();
  #history: string[];
  #readline: Interface | undefined;
  readonly #onKey = (typed: string | undefined, key: Key | undefined) => this.#key(typed, key);
  readonly #restore = () => this.#rawMode(false);

  constructor(private readonly options: TtyInputOptions) {
    this.answers = Object.assign(new PassThrough(), { isTTY: true as const });
    this.#history = options.history?.load() ?? [];
    emitKeypressEvents(options.stdin);
    // Before readline's own listener (added with each prompt): a paste is known when its lines come.
    options.stdin.on("keypress", this.#onKey);
    this.#rawMode(true);
    options.stdin.resume();
    process.once("exit", this.#restore);
  }

  /** The next prompt: a queued line, else what is typed at `› `; undefined ends the session. */
  async next(signal: AbortSignal): Promise<string | undefined> {
    if (this.#mode === "closed") {
      return undefined;
    }
    this.options.typing?.("");
    const queued = this.#queue.shift();
    if (queued !== undefined) {
      this.options.stderr.write(`› ${queued.replaceAll("\n", "\n  ")}   (queued)\n`);
      this.#mode = "turn";
      return queued;
    }
    const typed = await this.#prompt(signal);
    this.#mode = typed === undefined ? "idle" : "turn";
    return typed;
  }

  /** The turn ended; a cancelled one's queue is not sent (it goes to the history). */
  turnEnded(how: { cancelled: boolean }): void {
    this.#mode = "idle";
    if (!how.cancelled || this.#queue.length === 0) {
      return;
    }
    const dropped = this.#queue.splice(0);
    this.#history.unshift(...dropped.reverse());
    this.options.notice(
      `acp-terminal: ${dropped.length} queued line${dropped.length === 1 ? "" : "s"} not sent after the cancelled turn (Up at the prompt finds ${dropped.length === 1 ? "it" : "them"})`,
    );
  }

  /** A question is shown: the next line typed answers it. */
  questionOpened(): void {
    this.#questions += 1;
  }

  questionClosed(): void {
    this.#questions = Math.max(0, this.#questions - 1);
    if (this.#questions === 0) {
      this.#answerLine.text = "";
    }
  }

  /** Lets go of the TTY (a terminal login runs in it) until `resume`. */
  suspend(): void {
    this.#mode = "suspended";
    this.#rawMode(false);
    this.options.stdin.pause();
  }

  resume(): void {
    this.#mode = "idle";
    this.#rawMode(true);
    this.options.stdin.resume();
  }

  /** The session ended: the TTY as it was, the history saved. */
  close(): void {
    if (this.#mode === "closed") {
      return;
    }
    this.#mode = "closed";
    this.#readline?.close();
    this.options.stdin.off("keypress", this.#onKey);
    this.#rawMode(false);
    this.options.stdin.pause();
    this.answers.end();
    process.off("exit", this.#restore);
  }

  /** One prompt through readline; its interface lives as long as the prompt. */
  #prompt(signal: AbortSignal): Promise<string | undefined> {
    const { stdin, stderr } = this.options;
    this.#mode = "prompt";
    return new Promise((resolve) => {
      const parts: string[] = [];
      const readline = createInterface({
        input: stdin,
        output: stderr,
        terminal: true,
        history: this.#history,
        historySize: MAX_HISTORY_LINES,
        removeHistoryDuplicates: true,
        prompt: "› ",
      });
      this.#readline = readline;
      let done = false;
      const finish = (text: string | undefined) => {
        if (done) {
          return;
        }
        done = true;
        signal.removeEventListener("abort", onAbort);
        this.#history = readlineHistory(readline) ?? this.#history;
        this.#readline = undefined;
        readline.close();
        // readline leaves raw mode and pauses its input when it closes: the session goes on.
        this.#rawMode(true);
        stdin.resume();
        const problem = this.options.history?.save(this.#history);
        if (problem !== undefined) {
          this.options.notice(`acp-terminal: ${problem}`);
        }
        resolve(text);
      };
      const onAbort = () => finish(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
      readline.on("line", (line: string) => {
        if (this.#questions > 0) {
          this.answers.write(`${line}\n`);
          return;
        }
        if (this.#pasting || line.endsWith("\\")) {
          parts.push(this.#pasting ? line : line.slice(0, -1));
          readline.setPrompt("… ");
          readline.prompt();
          return;
        }
        const text = [...parts, line].join("\n");
        parts.length = 0;
        readline.setPrompt("› ");
        if (text.trim() === "") {
          readline.prompt();
          return;
        }
        finish(text);
      });
      readline.on("SIGINT", () => {
        if (readline.line === "" && parts.length === 0) {
          stderr.write("\n");
          finish(undefined);
          return;
        }
        // Ctrl-C on a typed line clears it (all of a prompt of many lines), as shells do.
        readline.write(null, { ctrl: true, name: "e" });
        readline.write(null, { ctrl: true, name: "u" });
        if (parts.length > 0) {
          parts.length = 0;
          stderr.write("\n");
          readline.setPrompt("› ");
          readline.prompt();
        }
      });
      readline.on("close", () => finish(undefined));
      if (signal.aborted) {
        finish(undefined);
        return;
      }
      readline.prompt();
    });
  }

  #key(typed: string | undefined, key: Key | undefined): void {
    if (key?.name === "paste-start" || key?.name === "paste-end") {
      this.#pasting = key.name === "paste-start";
    }
    if (this.#mode === "prompt" || this.#mode === "suspended" || this.#mode === "closed") {
      return; // readline has the keys, or no one does
    }
    if (this.#questions > 0) {
      this.#answerKey(typed, key);
      return;
    }
    if (this.#mode === "turn") {
      this.#turnKey(typed, key);
    }
  }

  /** A key while a question is shown: typed into its answer, echoed. */
  #answerKey(typed: string | undefined, key: Key | undefined): void {
    const { stderr } = this.options;
    const before = this.#answerLine.text;
    const effect = this.#answerLine.key(typed, key);
    switch (effect.kind) {
      case "interrupt":
        this.onInterrupt();
        return;
      case "submitted":
        stderr.write("\r\n");
        this.answers.write(`${effect.line}\n`);
        return;
      case "typed":
      case "cleared":
        // Erase what was shown of the answer and show it again.
        stderr.write(`${"\b \b".repeat([...before].length)}${this.#answerLine.text}`);
        return;
      default:
        return;
    }
  }

  /** A key during a turn: the line typed is shown, queued on Enter. */
  #turnKey(typed: string | undefined, key: Key | undefined): void {
    const effect = this.#turnLine.key(typed, key);
    switch (effect.kind) {
      case "interrupt":
        this.onInterrupt();
        return;
      case "submitted": {
        this.options.typing?.("");
        if (effect.line.trim() === "") {
          return;
        }
        if (this.#queue.length >= MAX_QUEUED_LINES) {
          this.options.notice(
            `acp-terminal: ${MAX_QUEUED_LINES} lines are queued already; this one is not: ${oneLine(effect.line)}`,
          );
          return;
        }
        this.#queue.push(effect.line);
        this.options.notice(
          `⧗ queued: ${oneLine(effect.line)}   (sent when this turn ends; Up takes it back, Ctrl-C then clears it)`,
        );
        return;
      }
      case "recall": {
        const last = this.#queue.pop();
        if (last !== undefined) {
          this.#turnLine.text = last;
          this.options.typing?.(last);
        }
        return;
      }
      case "typed":
      case "cleared":
        this.options.typing?.(this.#turnLine.text);
        return;
      default:
        return;
    }
  }

  #rawMode(on: boolean): void {
    if (this.options.stdin.isTTY === true && typeof this.options.stdin.setRawMode === "function") {
      this.options.stdin.setRawMode(on);
    }
    this.options.stderr.write(on ? PASTE_ON : PASTE_OFF);
  }
}

/** readline's history, newest first (typed as internal in Node's types: read it as a value). */
function readlineHistory(readline: Interface): string[] | undefined {
  const history: unknown = Reflect.get(readline, "history");
  return Array.isArray(history) ? history.filter((line) => typeof line === "string") : undefined;
}

/** A queued line as a notice shows it: its first line, and how many more. */
function oneLine(text: string): string {
  const [first = "", ...more] = text.split("\n");
  const cut = first.length > 200 ? `${first.slice(0, 199)}…` : first;
  return more.length === 0 ? cut : `${cut} (+${more.length} line${more.length === 1 ? "" : "s"})`;
}
