import { StringDecoder } from "node:string_decoder";

/** Lines kept for the open question; more (a paste) are dropped. */
const MAX_PENDING_LINES = 100;
/** Characters of one line kept; the rest of a longer line is dropped. */
const MAX_LINE_CHARS = 4096;

/**
 * The lines typed on the TTY, read from the moment the CLI may ask until it exits. Only a line
 * typed while a question is shown can answer it: one that arrives, or began, while none is shown
 * is dropped. So an answer typed twice (`1⏎`, then `1⏎` 150 ms later, meant for the same
 * question) never approves the next question before it is even shown.
 */
export class AnswerLines {
  readonly #decoder = new StringDecoder("utf8");
  #partial = "";
  /** The line being typed began while no question was shown. */
  #partialIsStale = false;
  #open = false;
  #dropped = 0;
  #ended = false;
  readonly #pending: string[] = [];
  #wake: (() => void) | undefined;

  constructor(input: NodeJS.ReadableStream) {
    input.on("data", (chunk: Buffer | string) =>
      this.#receive(typeof chunk === "string" ? chunk : this.#decoder.write(chunk)),
    );
    input.on("end", () => this.#end());
    input.on("close", () => this.#end());
  }

  #receive(text: string): void {
    for (const part of text.split(/(\n)/)) {
      if (part !== "\n") {
        if (this.#partial === "") {
          this.#partialIsStale = !this.#open;
        }
        this.#partial = (this.#partial + part).slice(0, MAX_LINE_CHARS);
        continue;
      }
      const line = this.#partial.replace(/\r$/, "");
      const stale = this.#partial === "" ? !this.#open : this.#partialIsStale;
      this.#partial = "";
      if (stale || this.#pending.length >= MAX_PENDING_LINES) {
        this.#dropped++;
      } else {
        this.#pending.push(line);
      }
    }
    this.#wake?.();
  }

  #end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  /** A question is now shown: lines from here on answer it. Returns the lines dropped since the last one. */
  open(): number {
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.#pending.length = 0;
    this.#open = true;
    return dropped;
  }

  /** The question was answered or abandoned: lines typed from now on are dropped. */
  close(): void {
    this.#open = false;
    this.#pending.length = 0;
  }

  /** The next line typed since open(), or undefined when the input ends or `signal` aborts. */
  async next(signal: AbortSignal): Promise<string | undefined> {
    for (;;) {
      const line = this.#pending.shift();
      if (line !== undefined) {
        return line;
      }
      if (this.#ended || signal.aborted) {
        return undefined;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          this.#wake = undefined;
          resolve();
        };
        this.#wake = done;
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }
}

const readers = new WeakMap<NodeJS.ReadableStream, AnswerLines>();

/**
 * The one reader of `input`'s answers, started on first use (start it before the first question),
 * reading again if it was paused (while a terminal login read the TTY itself).
 */
export function answerLinesOf(input: NodeJS.ReadableStream): AnswerLines {
  let reader = readers.get(input);
  if (reader === undefined) {
    reader = new AnswerLines(input);
    readers.set(input, reader);
  } else if (input.isPaused()) {
    input.resume();
  }
  return reader;
}
