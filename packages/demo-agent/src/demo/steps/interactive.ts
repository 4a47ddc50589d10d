import { bgCommand } from "../../commands/bg.js";
import { sendCommand } from "../../commands/send.js";
import type { Step } from "./step.js";
import { outputMatching } from "./wait.js";

/** A command that asks a question on stdout and reads the answer from stdin. */
const PROMPT_COMMAND = 'printf "name? "; read n; echo "hello $n"';
const PROMPT = "name?";
const ANSWER = "acp";

/**
 * Start a command with stdin open, wait for its prompt, answer it with `send`. Needs a client
 * whose terminals take input (our host's stdin extension, or local processes); with a plain ACP
 * client the step says why and is skipped, not failed.
 */
export const interactive: Step = {
  title: "An interactive prompt answered through stdin",
  async run(session, say) {
    const provider = session.mode.provider;
    if (!provider.capabilities.write) {
      await say(
        "Skipped: this client's terminals take no input (it does not offer the acp-terminal stdin extension).",
        {
          step: "interactive",
          skipped: true,
          reason: "no stdin extension",
        },
      );
      return;
    }
    await say(
      `Start it with stdin open, wait for its prompt ${JSON.stringify(PROMPT)}, then answer with send:`,
    );
    const job = await bgCommand(session, PROMPT_COMMAND, { stdin: true });
    await outputMatching(session.manager, job.id, (output) => output.includes(PROMPT), 10_000);
    await sendCommand(session, job.id, ANSWER, false);
    const ended = await session.background.reported(job.id);
    const output = session.outputTail(job.id);
    // On a pipe the answer is not shown; a PTY (the client's choice, e.g. `acp-terminal run --pty`) echoes it.
    const echo = output.includes(`${PROMPT} ${ANSWER}`)
      ? "the terminal echoed the answer"
      : "the answer is not echoed: stdin is a pipe";
    await say(
      `→ ${ended.status}, exit code ${ended.exitCode}; its terminal shows ${JSON.stringify(output.trim())} (${echo}).`,
      {
        step: "interactive",
        skipped: false,
        status: ended.status,
        exitCode: ended.exitCode,
        output,
      },
    );
  },
};
