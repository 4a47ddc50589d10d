import { reportError } from "../report-error.js";
import type { DemoSession } from "../session.js";
import type { Step } from "./steps/step.js";
import { build } from "./steps/build.js";
import { flood } from "./steps/flood.js";
import { foreground } from "./steps/foreground.js";
import { interactive } from "./steps/interactive.js";
import { interrupt } from "./steps/interrupt.js";
import { killTree } from "./steps/kill-tree.js";
import { release } from "./steps/release.js";
import { timeout } from "./steps/timeout.js";

export const TOUR: readonly Step[] = [
  foreground,
  timeout,
  build,
  interactive,
  killTree,
  interrupt,
  flood,
  release,
];

/** `demo`: every step in order, each announced; stops early on `session/cancel`. */
export async function runTour(session: DemoSession): Promise<void> {
  const started = Date.now();
  // A cancelled tour stops its own runs (not those the user started in earlier turns).
  const before = new Set(
    session.manager.list({ sessionId: session.id, limit: 500 }).map((run) => run.id),
  );
  const stopTourRuns = (): void => {
    for (const run of session.manager.list({
      sessionId: session.id,
      status: ["running", "queued"],
    })) {
      if (before.has(run.id)) {
        continue;
      }
      void session.manager
        .kill(run.id, { sessionId: session.id })
        .catch((error: unknown) => reportError(`stopping the tour's run ${run.id}`, error));
    }
  };
  session.turn.signal.addEventListener("abort", stopTourRuns, { once: true });
  const say = (text: string, facts?: Record<string, unknown>) => session.say(`  ${text}\n`, facts);
  await session.say(`The tour: ${TOUR.length} steps through acp-process.\n`);
  try {
    for (const [index, step] of TOUR.entries()) {
      if (session.turn.signal.aborted) {
        return;
      }
      await session.say(`\n${index + 1}/${TOUR.length} ${step.title}\n`);
      await step.run(session, say);
    }
  } catch (error) {
    if (session.turn.signal.aborted) {
      return; // a step interrupted by the cancel: nothing to report
    }
    throw error;
  } finally {
    session.turn.signal.removeEventListener("abort", stopTourRuns);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  await session.say(`\nTour complete in ${seconds} s.\n`, {
    event: "tour_complete",
    steps: TOUR.length,
    seconds: Number(seconds),
  });
}
