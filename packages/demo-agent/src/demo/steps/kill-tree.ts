import { bgCommand } from "../../commands/bg.js";
import { killCommand } from "../../commands/kill.js";
import type { Step } from "./step.js";
import { isAlive, outputMatching, survivors } from "./wait.js";

/**
 * A parent shell that starts a child and waits for it; each prints its pid as the machine sees it.
 * A client may run commands in a PID namespace of their own (acp-terminal run does), where `$$` and
 * `$!` are the namespace's small pids; /proc is the machine's, so each shell reads its own there
 * (`read` is a builtin: no fork). Without /proc, `$!` and `$$`.
 */
const TREE_COMMAND =
  'if [ -r /proc/self/stat ]; then (read -r c _ </proc/self/stat; echo "child pid $c"; exec sleep 30) & ' +
  'read -r p _ </proc/self/stat; echo "parent pid $p"; else sleep 30 & echo "child pid $!"; echo "parent pid $$"; fi; wait';
const CHILD_PID = /child pid (\d+)/;
const PARENT_PID = /parent pid (\d+)/;
/** How long the killed pids may take to disappear before the step reports survivors. */
const REAP_DEADLINE_MS = 5000;

export const killTree: Step = {
  title: "Kill a process tree",
  async run(session, say) {
    const tree = await bgCommand(session, TREE_COMMAND);
    const output = await outputMatching(
      session.manager,
      tree.id,
      (text) => CHILD_PID.test(text) && PARENT_PID.test(text),
      10_000,
    );
    const child = CHILD_PID.exec(output)![1]!;
    const parent = PARENT_PID.exec(output)![1]!;
    const pids = [Number(parent), Number(child)];
    await say(
      `Parent ${parent} and child ${child} are running: alive ${pids.map(isAlive).join(", ")}.`,
    );
    const killed = await killCommand(session, tree.id);
    await session.background.reported(tree.id);
    // The group kill has been delivered; the kernel may take a moment to reap the child (longer
    // under load). A deadline, not a sleep: this returns as soon as both are gone.
    const alive = await survivors(pids, REAP_DEADLINE_MS);
    const verdict = alive.length === 0 ? "both gone" : `still alive: ${alive.join(", ")}`;
    await say(
      `→ ${killed.status} (${killed.signal ?? `exit ${killed.exitCode}`}); pids ${pids.join(" and ")}: ${verdict} (checked on the agent's machine).`,
      {
        step: "kill",
        status: killed.status,
        signal: killed.signal,
        pids,
        alive,
      },
    );
  },
};
