import { bgCommand } from "../../commands/bg.js";
import { logCommand } from "../../commands/log.js";
import { pollCommand } from "../../commands/poll.js";
import { watchCommand } from "../../commands/watch.js";
import type { Step } from "../step.js";
import { outputMatching } from "../wait.js";

/** A build-like job: progress lines, then "build done". About 1.5 s. */
export const BUILD_COMMAND = 'for i in 1 2 3 4 5 6; do echo "[build] step $i/6"; sleep 0.25; done; echo "build done"';
const WATCH_REGEX = "ERROR|done";

export const build: Step = {
  title: "A background build, polled and logged by cursor, with a watcher",
  async run(session, say) {
    const job = await bgCommand(session, BUILD_COMMAND);
    await watchCommand(session, job.id, WATCH_REGEX);
    const lines = (output: string): number => (output.match(/^\[build\]/gm) ?? []).length;

    await outputMatching(session.manager, job.id, (output) => lines(output) >= 2, 10_000);
    const first = await pollCommand(session, job.id);
    await say(`poll: since_seq ${first.sinceSeq} → next_seq ${first.page.nextSeq}, ${first.page.run.status}.`, {
      step: "poll",
      sinceSeq: first.sinceSeq,
      nextSeq: first.page.nextSeq,
    });

    // Two more lines, and at least one item past the first poll's cursor (even on a slow machine).
    const newItems = (): boolean => session.manager.get(job.id).nextSeq > first.page.nextSeq;
    await outputMatching(session.manager, job.id, (output) => lines(output) >= 4 && newItems(), 10_000);
    const second = await pollCommand(session, job.id);
    await say(`poll again: since_seq ${second.sinceSeq} → next_seq ${second.page.nextSeq}: only the new lines.`, {
      step: "poll",
      sinceSeq: second.sinceSeq,
      nextSeq: second.page.nextSeq,
    });

    const log = await logCommand(session, job.id, 2);
    await say(`log (last 2 lines): ${log.lines.map((line) => JSON.stringify(line)).join(", ")}, lines ${log.offset + 1}–${log.offset + log.lines.length} of ${log.totalLines}.`);

    // A headless client lives for one turn: wait here for the exit the reporter announces.
    const ended = await session.background.reported(job.id);
    const last = await pollCommand(session, job.id);
    await say(`The job ended (${ended.status}, exit code ${ended.exitCode}); a last poll: since_seq ${last.sinceSeq} → next_seq ${last.page.nextSeq}, done ${last.page.done}.`, {
      step: "build",
      status: ended.status,
      exitCode: ended.exitCode,
      done: last.page.done,
    });
  },
};
