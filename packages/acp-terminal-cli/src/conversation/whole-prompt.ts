import { createReadStream } from "node:fs";
import { messageOf } from "acp-terminal/internal";

/** Bytes of one prompt read whole (stdin, `-f FILE`) at most: a longer one is an error, never cut. */
export const MAX_PROMPT_BYTES = 1024 * 1024;
/**
 * With a prompt argument, how long piped stdin may stay silent before the run goes on without it
 * (a program that leaves our stdin open and writes nothing must not hang the run).
 */
export const STDIN_SILENCE_MS = 3000;

/** A prompt read whole, or what went wrong (a line the user can act on). */
export type WholePrompt = { text: string } | { error: string };

/**
 * Reads `input` to its end as one prompt, UTF-8, at most MAX_PROMPT_BYTES. With `silenceMs`,
 * an input that sends nothing for that long is given up (`{ text: "" }`, and `silent` is called):
 * once a first byte came, the rest is awaited.
 */
export function readWholePrompt(
  input: NodeJS.ReadableStream,
  what: string,
  options: { silenceMs?: number; silent?: () => void } = {},
): Promise<WholePrompt> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let silence: NodeJS.Timeout | undefined;
    const finish = (result: WholePrompt) => {
      clearTimeout(silence);
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onError);
      input.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      clearTimeout(silence);
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      bytes += buffer.byteLength;
      if (bytes > MAX_PROMPT_BYTES) {
        finish({
          error: `The prompt in ${what} is longer than ${MAX_PROMPT_BYTES} bytes; nothing of a prompt is cut: give a shorter one, or a file the agent can read`,
        });
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => finish(decoded(Buffer.concat(chunks), what));
    const onError = (error: Error) =>
      finish({ error: `Cannot read the prompt from ${what}: ${error.message}` });
    input.on("data", onData);
    input.once("end", onEnd);
    input.once("error", onError);
    input.resume();
    if (options.silenceMs !== undefined) {
      silence = setTimeout(() => {
        options.silent?.();
        finish({ text: "" });
      }, options.silenceMs);
    }
  });
}

/** `-f FILE`: the file's text as one prompt. */
export async function readPromptFile(file: string): Promise<WholePrompt> {
  const stream = createReadStream(file);
  const opened = await new Promise<Error | undefined>((resolve) => {
    stream.once("open", () => resolve(undefined));
    stream.once("error", resolve);
  });
  if (opened !== undefined) {
    return { error: `Cannot read the prompt file ${file} (-f): ${messageOf(opened)}` };
  }
  const read = await readWholePrompt(stream, `${file} (-f)`);
  stream.destroy();
  return read;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function decoded(bytes: Buffer, what: string): WholePrompt {
  try {
    // A trailing line break ends the input; it is no part of the prompt.
    return { text: decoder.decode(bytes).replace(/(\r?\n)+$/, "") };
  } catch {
    return { error: `The prompt in ${what} is not UTF-8 text` };
  }
}
