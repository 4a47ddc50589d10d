import { bgCommand } from "../../commands/bg.js";
import { killCommand } from "../../commands/kill.js";
import type { Step } from "./step.js";
import { outputMatching } from "./wait.js";

/** A server-like command that cleans up when interrupted (SIGINT), as Ctrl-C would make it. */
const INTERRUPTIBLE_COMMAND = `trap 'echo "interrupted: cleaning up"; exit 130' INT; echo "serving (Ctrl-C stops me)"; while :; do sleep 0.1; done`;

/**
 * `kill --signal SIGINT`: a chosen signal through the client's signal extension (acp-process would
 * force the kill if the command ignored it). A client without the extension can only kill, so the
 * step says so and is skipped.
 */
export const interrupt: Step = {
  title: "Interrupt a command with a chosen signal (SIGINT), and let it clean up",
  async run(session, say) {
    if (!session.mode.provider.capabilities.signal) {
      await say(
        "Skipped: this client's terminals take no chosen signal (it does not offer the acp-terminal signal extension).",
        {
          step: "interrupt",
          skipped: true,
          reason: "no signal extension",
        },
      );
      return;
    }
    const job = await bgCommand(session, INTERRUPTIBLE_COMMAND);
    await outputMatching(session.manager, job.id, (output) => output.includes("serving"), 10_000);
    const killed = await killCommand(session, job.id, "SIGINT");
    await session.background.reported(job.id);
    const output = session.outputTail(job.id);
    const lastLine = output.trim().split("\n").at(-1) ?? "";
    await say(
      `→ ${killed.status}, exit code ${killed.exitCode}; its trap ran first: ${JSON.stringify(lastLine)}.`,
      {
        step: "interrupt",
        skipped: false,
        status: killed.status,
        exitCode: killed.exitCode,
        signal: killed.signal,
        output,
      },
    );
  },
};
