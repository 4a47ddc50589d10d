import { listCommand } from "../../commands/list.js";
import type { Step } from "./step.js";

/** How long a run that has ended may take to release its terminal (its exit is reported first). */
const SETTLE_DEADLINE_MS = 10_000;

/**
 * Every run ended, and every terminal released — checked, not assumed: each run's `terminalId`
 * is null once acp-process has released it, and in local mode the local host holds none.
 */
export const release: Step = {
  title: "Release everything",
  async run(session, say) {
    // Every run should have ended by now; kill any straggler.
    for (const run of session.manager.list({
      sessionId: session.id,
      status: ["running", "queued"],
    })) {
      await session.manager.kill(run.id, { sessionId: session.id });
    }
    const runs = await listCommand(session);
    const running = runs.filter((run) => run.status === "running" || run.status === "queued");
    // An exit is reported before the terminal is released: wait (bounded) until each run has settled.
    const settled = await Promise.all(
      runs.map((run) =>
        session.manager.wait(run.id, { sessionId: session.id, timeoutMs: SETTLE_DEADLINE_MS }),
      ),
    );
    const unreleased = settled.filter((run) => run.terminalId !== null).map((run) => run.id);
    const localTerminals = session.mode.localTerminals?.() ?? null;
    const released =
      unreleased.length === 0 && (localTerminals === null || localTerminals.length === 0);
    const terminals =
      unreleased.length === 0
        ? `every run's terminal is released (terminalId null for ${runs.length} of ${runs.length})`
        : `terminals not released: ${unreleased.join(", ")}`;
    const host =
      localTerminals === null
        ? ""
        : `; the local host holds ${localTerminals.length} terminals for this session`;
    await say(
      `→ ${runs.length} runs in this session, ${running.length} running; ${terminals}${host}.`,
      {
        step: "release",
        runs: runs.map((run) => ({
          id: run.id,
          status: run.status,
          exitCode: run.exitCode,
          signal: run.signal,
        })),
        running: running.length,
        unreleased,
        localTerminals,
        released,
      },
    );
  },
};
