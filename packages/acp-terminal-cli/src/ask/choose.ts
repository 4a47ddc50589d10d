import { answerLinesOf } from "./answer-lines.js";

/** Where a question is asked: the person's TTY. */
export interface ChoiceIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Aborts when the turn is cancelled (Ctrl-C): a pending question ends unanswered. */
  signal: AbortSignal;
}

/**
 * Writes `question` with numbered `choices` and reads answers until one is a valid number.
 * Resolves with the index picked, `enter.index` for an empty line, or undefined when the input
 * ends or `signal` aborts first. Only what is typed after the question is shown answers it (see
 * answer-lines.ts): lines typed before are ignored, and the question says how many.
 */
export async function choose(
  io: ChoiceIo,
  question: string,
  choices: readonly string[],
  enter: { index: number; verb: string },
): Promise<number | undefined> {
  if (io.signal.aborted) {
    return undefined;
  }
  const answers = answerLinesOf(io.input);
  const count = choices.length;
  const promptLine = `Choose 1-${count} (Enter ${enter.verb}): `;
  try {
    const list = choices.map((choice, i) => `  ${i + 1}) ${choice}`).join("\n");
    const dropped = answers.open();
    const ignored =
      dropped > 0
        ? `(${dropped} line${dropped === 1 ? "" : "s"} typed before this question ignored)\n`
        : "";
    io.output.write(`${question}\n${list}\n${ignored}${promptLine}`);
    for (;;) {
      const raw = await answers.next(io.signal);
      if (raw === undefined) {
        return undefined;
      }
      const answer = raw.trim();
      if (answer === "") {
        return enter.index;
      }
      const index = Number(answer);
      if (Number.isInteger(index) && index >= 1 && index <= count) {
        return index - 1;
      }
      io.output.write(
        `Expected a number from 1 to ${count}, received ${JSON.stringify(answer.slice(0, 100))}\n${promptLine}`,
      );
    }
  } finally {
    answers.close();
  }
}

/**
 * One question on the TTY at a time: the agent's permission requests and the terminal approvals
 * can arrive together, and two readers on one stdin would split the answers between them.
 */
export class QuestionQueue {
  #last: Promise<unknown> = Promise.resolve();

  /** Runs `ask` once every question queued before it has been answered. */
  one<T>(ask: () => Promise<T>): Promise<T> {
    const next = this.#last.then(ask);
    this.#last = next.catch(() => undefined);
    return next;
  }
}
