import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { AnswerLines } from "../src/ask/answer-lines.js";

describe("answers typed on the TTY", () => {
  const never = new AbortController().signal;

  it("a line typed while no question is shown is dropped, and counted at the next question", async () => {
    const input = new PassThrough();
    const answers = new AnswerLines(input);
    input.write("1\n1\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers.open()).toBe(2);
    input.write("3\n");
    expect(await answers.next(never)).toBe("3");
    answers.close();
  });

  it("a line begun before the question and ended after it is dropped too", async () => {
    const input = new PassThrough();
    const answers = new AnswerLines(input);
    input.write("1");
    await new Promise((resolve) => setImmediate(resolve));
    answers.open();
    input.write("\n2\r\n");
    expect(await answers.next(never)).toBe("2");
  });

  it("ends with the input, or when the question is abandoned", async () => {
    const input = new PassThrough();
    const answers = new AnswerLines(input);
    answers.open();
    const cancel = new AbortController();
    const pending = answers.next(cancel.signal);
    cancel.abort();
    expect(await pending).toBeUndefined();
    const ended = answers.next(never);
    input.end();
    expect(await ended).toBeUndefined();
  });
});
