import { StringDecoder } from "node:string_decoder";

/** Characters of one prompt line read from stdin at most. */
export const MAX_PROMPT_CHARS = 256 * 1024;
/** Prompt lines read ahead of the turns at most (stdin is paused beyond). */
const READ_AHEAD_LINES = 16;

/** Where a conversation's prompts come from. */
export interface PromptSource {
  /** A person types them (a TTY): a cancelled turn returns to the prompt. */
  readonly interactive: boolean;
  /** The next prompt; undefined when there are no more (or `signal` aborted the wait). */
  next(signal: AbortSignal): Promise<string | undefined>;
  /** The turn of the last prompt ended (cancelled: by Ctrl-C, or the agent said so). */
  turnEnded?(how: { cancelled: boolean }): void;
}

/** The prompt given on the command line: one turn. */
export function onePrompt(text: string): PromptSource {
  let given = false;
  return {
    interactive: false,
    next: () => {
      if (given) {
        return Promise.resolve(undefined);
      }
      given = true;
      return Promise.resolve(text);
    },
  };
}

/**
 * Prompts piped on stdin, one a line (blank lines skipped, a trailing `\r` dropped), read ahead
 * at most READ_AHEAD_LINES. A line longer than MAX_PROMPT_CHARS is an error (`next` rejects):
 * nothing of a prompt is cut.
 */
export class PipedPrompts implements PromptSource {
  readonly interactive = false;
  readonly #lines: string[] = [];
  readonly #decoder = new StringDecoder("utf8");
  #partial = "";
  #ended = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;

  constructor(private readonly input: NodeJS.ReadableStream) {
    input.on("data", (chunk: Buffer | string) =>
      this.#receive(typeof chunk === "string" ? chunk : this.#decoder.write(chunk)),
    );
    input.on("end", () => this.#end());
    input.on("close", () => this.#end());
    input.on("error", (error: Error) => {
      this.#error = new Error(`Cannot read prompts from stdin: ${error.message}`);
      this.#end();
    });
  }

  /** Resolves once a first prompt is there, or stdin ended without one (false). */
  async hasPrompt(): Promise<boolean> {
    while (this.#lines.length === 0 && !this.#ended) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    return this.#lines.length > 0;
  }

  async next(signal: AbortSignal): Promise<string | undefined> {
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) {
        if (this.#lines.length < READ_AHEAD_LINES) {
          this.input.resume();
        }
        return line;
      }
      if (this.#error !== undefined) {
        throw this.#error;
      }
      if (this.#ended || signal.aborted) {
        return undefined;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          resolve();
        };
        this.#wake = done;
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  #receive(text: string): void {
    const parts = (this.#partial + text).split("\n");
    this.#partial = parts.pop() ?? "";
    for (const part of parts) {
      this.#line(part);
    }
    if (this.#partial.length > MAX_PROMPT_CHARS) {
      this.#tooLong();
    }
    if (this.#lines.length >= READ_AHEAD_LINES) {
      this.input.pause();
    }
    this.#wake?.();
  }

  #line(raw: string): void {
    const line = raw.replace(/\r$/, "");
    if (line.length > MAX_PROMPT_CHARS) {
      this.#tooLong();
    } else if (line.trim() !== "" && this.#error === undefined) {
      this.#lines.push(line);
    }
  }

  #tooLong(): void {
    this.#error ??= new Error(
      `A prompt line on stdin is longer than ${MAX_PROMPT_CHARS} characters; nothing of a prompt is cut`,
    );
    this.#partial = "";
    this.input.pause();
  }

  #end(): void {
    if (!this.#ended) {
      this.#line(this.#partial + this.#decoder.end());
      this.#partial = "";
    }
    this.#ended = true;
    this.#wake?.();
  }
}
