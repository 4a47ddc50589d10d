import { bgCommand } from "../../commands/bg.js";
import { logCommand } from "../../commands/log.js";
import { pollCommand, type PollResult } from "../../commands/poll.js";
import { FileGate } from "./gate.js";
import type { Step } from "./step.js";
import { outputMatching } from "./wait.js";

/**
 * A build-like job: progress lines, then "build done". After steps 2 and 4 it pauses until the
 * tour creates the file `$BUILD_GATE<step>` (at most ~5 s each), so each poll sees exactly two new
 * lines, however slow the agent: the job cannot run ahead of the tour.
 */
const BUILD_COMMAND =
  'for i in 1 2 3 4 5 6; do echo "[build] step $i/6"; sleep 0.1; ' +
  'case $i in 2|4) for t in $(seq 100); do [ -e "$BUILD_GATE$i" ] && break; sleep 0.05; done;; esac; done; echo "build done"';
const WATCH_REGEX = "ERROR|done";
const WAIT_MS = 10_000;

const buildLines = (output: string): number => (output.match(/^\[build\]/gm) ?? []).length;

export const build: Step = {
  title: "A background build, polled and logged by cursor, with a watcher",
  async run(session, say) {
    const gate = await FileGate.create();
    try {
      // The watcher is given at start (acp-process installs it before the first output is read):
      // added after the start, it could miss a line printed in between.
      await say(
        `Start it in the background with a watcher for /${WATCH_REGEX}/, given at start so no line slips past it.`,
      );
      await say(
        "It pauses after steps 2 and 4 until the tour creates a file for it ($BUILD_GATE<step>), so each poll finds exactly two new lines:",
      );
      const job = await bgCommand(session, BUILD_COMMAND, {
        env: { BUILD_GATE: gate.prefix },
        watch: [{ regex: WATCH_REGEX, event: WATCH_REGEX }],
      });

      await outputMatching(session.manager, job.id, (output) => buildLines(output) >= 2, WAIT_MS);
      const first = await pollCommand(session, job.id);
      await gate.open("2");
      await outputMatching(session.manager, job.id, (output) => buildLines(output) >= 4, WAIT_MS);
      const second = await pollCommand(session, job.id);

      await say("Its last 2 lines so far, by line number:");
      await logCommand(session, job.id, 2);

      // A headless client lives for one turn: wait here for the exit the reporter announces.
      await say("Let it finish, wait for its exit (reported once), then poll the rest:");
      await gate.open("4");
      const ended = await session.background.reported(job.id);
      const last = await pollCommand(session, job.id);
      const polls = [first, second, last].map(pollFacts);
      const cursor = [0, ...polls.map((poll) => poll.nextSeq)].join(" → ");
      await say(
        `→ ${ended.status}, exit code ${ended.exitCode}; the cursor went ${cursor}, ${polls.map((poll) => poll.lines).join(" + ")} lines, done ${last.page.done}.`,
        {
          step: "build",
          status: ended.status,
          exitCode: ended.exitCode,
          polls,
          done: last.page.done,
        },
      );
    } finally {
      await gate.dispose();
    }
  },
};

/** A poll's cursor and how many lines it returned (the build's and `build done`). */
function pollFacts(poll: PollResult): { sinceSeq: number; nextSeq: number; lines: number } {
  return {
    sinceSeq: poll.sinceSeq,
    nextSeq: poll.page.nextSeq,
    lines: poll.text.split("\n").filter((line) => line !== "").length,
  };
}
