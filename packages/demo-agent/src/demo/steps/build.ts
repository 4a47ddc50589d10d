import { bgCommand } from "../../commands/bg.js";
import { logCommand } from "../../commands/log.js";
import { pollCommand } from "../../commands/poll.js";
import type { Step } from "../step.js";
import { outputMatching } from "../wait.js";

/** A build-like job: progress lines, then "build done". About 1.5 s. */
export const BUILD_COMMAND = 'for i in 1 2 3 4 5 6; do echo "[build] step $i/6"; sleep 0.25; done; echo "build done"';
const WATCH_REGEX = "ERROR|done";

export const build: Step = {
  title: "A background build, polled and logged by cursor, with a watcher",
  async run(session, say) {
    // The watcher is given at start (acp-process installs it before the first output is read):
    // added after the start, it could miss a line printed in between.
    await say(`Start it in the background with a watcher for /${WATCH_REGEX}/, given at start so no line slips past it:`);
    const job = await bgCommand(session, BUILD_COMMAND, { watch: [{ regex: WATCH_REGEX, event: WATCH_REGEX }] });
    const lines = (output: string): number => (output.match(/^\[build\]/gm) ?? []).length;

    await say("Poll it twice while it runs: each poll starts at the previous next_seq and returns only what is new.");
    await outputMatching(session.manager, job.id, (output) => lines(output) >= 2, 10_000);
    const first = await pollCommand(session, job.id);
    // Two more lines, and at least one item past the first poll's cursor (even on a slow machine).
    const newItems = (): boolean => session.manager.get(job.id).nextSeq > first.page.nextSeq;
    await outputMatching(session.manager, job.id, (output) => lines(output) >= 4 && newItems(), 10_000);
    const second = await pollCommand(session, job.id);

    await say("Its last 2 lines so far, by line number:");
    await logCommand(session, job.id, 2);

    // A headless client lives for one turn: wait here for the exit the reporter announces.
    await say("Wait for it to end (the exit is reported once), then poll the rest:");
    const ended = await session.background.reported(job.id);
    const last = await pollCommand(session, job.id);
    const polls = [first, second, last].map((poll) => ({ sinceSeq: poll.sinceSeq, nextSeq: poll.page.nextSeq }));
    const cursor = [0, ...polls.map((poll) => poll.nextSeq)].join(" → ");
    await say(`→ ${ended.status}, exit code ${ended.exitCode}; the cursor went ${cursor}, done ${last.page.done}.`, {
      step: "build",
      status: ended.status,
      exitCode: ended.exitCode,
      polls,
      done: last.page.done,
    });
  },
};
