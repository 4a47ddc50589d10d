import { runCommand } from "../../commands/run.js";
import type { Step } from "../step.js";

export const timeout: Step = {
  title: "A command that times out keeps its partial output",
  async run(session, say) {
    const { run, output } = await runCommand(session, 'echo "compiling (this takes a while)"; sleep 10; echo "never printed"', 1);
    await say(`→ ${run.status} after ${run.durationMs} ms (limit 1000 ms); partial output kept: ${JSON.stringify(output.trim())}.`, {
      step: "timeout",
      status: run.status,
      exitCode: run.exitCode,
      signal: run.signal,
      output,
    });
  },
};
