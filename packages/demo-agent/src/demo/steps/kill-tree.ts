import { bgCommand } from "../../commands/bg.js";
import { killCommand } from "../../commands/kill.js";
import type { Step } from "./step.js";
import { commandLineOf, isAlive, outputMatching, survivors } from "./wait.js";

/**
 * A parent shell that starts a child and waits for it; each pid as a shell script names it. The
 * pids are the machine's (acp-terminal run keeps them by default; a client that runs commands in
 * PID namespaces of their own would print pids that mean nothing here), checked below on the
 * agent's machine.
 */
const TREE_COMMAND = 'sleep 30 & echo "child pid $!"; echo "parent pid $$"; wait';
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
    const aliveBefore = pids.map(isAlive);
    // What runs under those pids here: the tree's shell and its sleep when pids mean the same on both sides.
    const commands = pids.map(commandLineOf);
    await say(
      `Parent ${parent} and child ${child} are running: alive ${aliveBefore.join(", ")}; here they are ${commands.map((c) => JSON.stringify(c)).join(" and ")}.`,
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
        aliveBefore,
        commands,
        alive,
      },
    );
  },
};
