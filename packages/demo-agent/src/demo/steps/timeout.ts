import { runCommand } from "../../commands/run.js";
import type { Step } from "./step.js";

/** Both timeouts of acp-process: a hard limit on the run, and a limit on time without output. */
export const timeout: Step = {
  title: "Timeouts keep the partial output: a hard limit, and a limit on silence",
  async run(session, say) {
    const hard = await runCommand(
      session,
      'echo "compiling (this takes a while)"; sleep 10; echo "never printed"',
      1,
    );
    await say(
      `→ ${hard.run.status} after ${hard.run.durationMs} ms (limit 1000 ms); partial output kept: ${JSON.stringify(hard.output.trim())}.`,
      {
        step: "timeout",
        status: hard.run.status,
        cause: hard.run.cause,
        exitCode: hard.run.exitCode,
        signal: hard.run.signal,
        output: hard.output,
      },
    );
    // `run --idle 0.5`: the inactivity timeout counts from the last output.
    const idle = await runCommand(
      session,
      'echo "waiting for a server that never answers"; sleep 10; echo "never printed"',
      30,
      0.5,
    );
    await say(
      `→ ${idle.run.status} after ${idle.run.durationMs} ms: no output for 500 ms (--idle 0.5), long before its 30 s limit; kept: ${JSON.stringify(idle.output.trim())}.`,
      {
        step: "idle",
        status: idle.run.status,
        cause: idle.run.cause,
        exitCode: idle.run.exitCode,
        signal: idle.run.signal,
        output: idle.output,
      },
    );
  },
};
