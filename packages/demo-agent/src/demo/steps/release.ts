import { listCommand } from "../../commands/list.js";
import type { Step } from "../step.js";

export const release: Step = {
  title: "Release everything",
  async run(session, say) {
    // Every run has ended, so acp-process has already released its terminal; kill any straggler.
    for (const run of session.manager.list({ sessionId: session.id, status: ["running", "queued"] })) {
      await session.manager.kill(run.id, { sessionId: session.id });
    }
    const runs = await listCommand(session);
    const running = runs.filter((run) => run.status === "running" || run.status === "queued");
    await say(`→ ${runs.length} runs in this session, ${running.length} running; every terminal has been released.`, {
      step: "release",
      runs: runs.map((run) => ({ id: run.id, status: run.status, exitCode: run.exitCode, signal: run.signal })),
      running: running.length,
    });
  },
};
