import { runCommand } from "../../commands/run.js";
import type { Step } from "./step.js";

export const foreground: Step = {
  title: "A foreground command",
  async run(session, say) {
    const { run, output } = await runCommand(
      session,
      'echo "hello from the demo tour"; uname -sm',
      10,
    );
    await say(
      `→ ${run.status}, exit code ${run.exitCode}, ${run.durationMs} ms; it printed ${JSON.stringify(output.split("\n")[0])}.`,
      {
        step: "foreground",
        status: run.status,
        exitCode: run.exitCode,
      },
    );
  },
};
