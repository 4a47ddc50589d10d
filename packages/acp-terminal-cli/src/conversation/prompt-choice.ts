import type { RunOptions } from "../command/args.js";
import { onePrompt, PipedPrompts, type PromptSource } from "./prompts.js";
import {
  readPromptFile,
  readWholePrompt,
  STDIN_SILENCE_MS,
  type WholePrompt,
} from "./whole-prompt.js";

export const MISSING_PROMPT =
  "Missing prompt: give it as the last argument, on stdin, or with -f FILE (stdin ended without one)";

/** Where the prompts are read from, and where a wait for them is said. */
export interface PromptIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

/**
 * Where a run's prompts come from, in this order:
 * - `-f FILE` (`-f -`: stdin, to its end, a TTY's too): one prompt, after the argument if one is
 *   given; stdin is not read otherwise;
 * - `--lines`: piped stdin, one prompt a line (no argument then);
 * - a prompt argument: one prompt, followed by piped stdin's text when some comes (a blank line
 *   between them); stdin that stays silent for STDIN_SILENCE_MS is given up, with a line saying so;
 * - piped stdin, whole, as one prompt;
 * - undefined: stdin is a TTY and there is no prompt: the interactive session.
 * Resolves once the prompt is read (so that "missing prompt" is said before the agent starts).
 */
export async function choosePrompts(
  options: Pick<RunOptions, "prompt" | "promptFile" | "lines">,
  io: PromptIo,
): Promise<PromptSource | { error: string } | undefined> {
  const argument = options.prompt;
  const piped = io.stdin.isTTY !== true;
  if (options.promptFile !== undefined) {
    const read =
      options.promptFile === "-"
        ? await readWholePrompt(io.stdin, "stdin (-f -)")
        : await readPromptFile(options.promptFile);
    return withArgument(argument, read);
  }
  if (options.lines === true && piped) {
    if (argument !== undefined) {
      return {
        error:
          "--lines reads the prompts from stdin, one a line: give no prompt argument (or leave --lines out to send the argument and stdin as one prompt)",
      };
    }
    const lines = new PipedPrompts(io.stdin);
    return (await lines.hasPrompt()) ? lines : { error: MISSING_PROMPT };
  }
  if (argument !== undefined) {
    if (!piped) {
      return onePrompt(argument);
    }
    const read = await readWholePrompt(io.stdin, "stdin", {
      silenceMs: STDIN_SILENCE_MS,
      silent: () =>
        io.stderr.write(
          `acp-terminal: nothing came on stdin within ${STDIN_SILENCE_MS / 1000} s: the prompt is the argument alone (give stdin </dev/null to skip the wait)\n`,
        ),
    });
    return withArgument(argument, read);
  }
  if (!piped) {
    return undefined;
  }
  return withArgument(undefined, await readWholePrompt(io.stdin, "stdin"));
}

/** The argument, a blank line, then the text read; either alone when the other is missing. */
function withArgument(
  argument: string | undefined,
  read: WholePrompt,
): PromptSource | { error: string } {
  if ("error" in read) {
    return read;
  }
  const parts = [argument, read.text].filter(
    (part): part is string => part !== undefined && part.trim() !== "",
  );
  return parts.length === 0 ? { error: MISSING_PROMPT } : onePrompt(parts.join("\n\n"));
}
