import type { ProcessManager, RunSnapshot } from "acp-process";
import { z } from "zod";
import { shortCommandLine } from "../elicit-approval.js";
import type { TaskInputRequest, TaskWork } from "./task.js";

/** The form a command waiting for input is answered with (2026-07-28 `tasks/update`). */
const STDIN_SCHEMA = {
  type: "object",
  properties: {
    text: {
      type: "string",
      title: "Input",
      description: "Written to the command's stdin, followed by a newline",
    },
    eof: { type: "boolean", title: "End the input after it", default: false },
  },
  required: ["text"],
};

/** The elicitation a task asks while its command waits for input. */
export function stdinRequest(question: string): TaskInputRequest {
  return {
    method: "elicitation/create",
    params: { mode: "form", message: question, requestedSchema: STDIN_SCHEMA },
  };
}

/** An elicitation answer for a command's stdin: the text (a line) and whether the input ends. */
const stdinAnswer = z.looseObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.looseObject({ text: z.string().optional(), eof: z.boolean().optional() }).optional(),
});

/**
 * A task's stdin (2026-07-28 `tasks/update`): it asks while a command of the call waits for
 * input; the answer's text goes to that command's stdin with a newline (and end of input when
 * asked); a declined or dismissed question ends its input, so it does not wait forever. Writes
 * pass the approval policy as every write does.
 */
export function stdinInput(
  env: { manager: ProcessManager; sessionId: string },
  activeRuns: () => RunSnapshot[],
  waitsForInput: (run: RunSnapshot) => Promise<boolean>,
): NonNullable<TaskWork["input"]> {
  let waiting: RunSnapshot | undefined;
  return {
    pending: async () => {
      waiting = undefined;
      for (const run of activeRuns()) {
        if (await waitsForInput(run)) {
          waiting = run;
          return `The command ${shortCommandLine(run.command, run.args)} waits for input on its stdin. What should it read?`;
        }
      }
      return undefined;
    },
    answer: async (response) => {
      const run = waiting;
      const parsed = stdinAnswer.safeParse(response);
      if (!run || !parsed.success) {
        return;
      }
      const { action, content } = parsed.data;
      const text = action === "accept" ? `${content?.text ?? ""}\n` : "";
      const eof = action !== "accept" || content?.eof === true;
      await env.manager.write(run.id, text, { sessionId: env.sessionId, eof }).catch(
        () => undefined, // it ended meanwhile, or the policy refused the write: the task goes on
      );
    },
  };
}
