import { observed, runToExit, sh, type Check } from "../base/check.js";
import { CheckFailure, RpcFailure } from "../base/probe.js";
import { backgroundSleep, killLeftover, pidHere, pidIn, untilGone, visiblePid } from "./pids.js";

/**
 * Behaviour where the spec is silent about processes: what kill reaches, when exit is known, when
 * kill returns, how a relative cwd and pagers are treated. Reported, never failed.
 */

/** How long a killed command's grandchild may take to disappear. */
const GONE_WITHIN_MS = 3_000;
/** How long wait_for_exit may take after the command exited while a grandchild holds its output. */
const EXIT_DESPITE_GRANDCHILD_MS = 5_000;

export const processBehaviourChecks: Check[] = [
  {
    id: "kill-reaches-grandchild",
    name: "terminal/kill also ends what the command started (its process group)",
    kind: "behaviour",
    async run({ probe, embed }) {
      const id = await probe.create(sh(`${backgroundSleep("grandchild")} wait`));
      await embed(id);
      const { output } = await probe.outputUntil(
        id,
        (o) => pidIn(o.output, "grandchild") !== undefined,
        "expected the background sleep's pid",
      );
      const pid = visiblePid(output, "grandchild");
      try {
        await probe.kill(id);
        const gone = await untilGone(pid, GONE_WITHIN_MS);
        return observed(
          gone,
          gone
            ? `the background sleep (${pid}) ended with the command`
            : `the background sleep (${pid}) still ran ${GONE_WITHIN_MS / 1000} s after terminal/kill: only the command itself was signalled`,
        );
      } finally {
        killLeftover(pid);
      }
    },
  },
  {
    id: "exit-despite-grandchild",
    name: "wait_for_exit returns when the command exits while a background grandchild holds its output",
    kind: "behaviour",
    async run({ probe, embed }) {
      const id = await probe.create(sh(backgroundSleep("grandchild")));
      await embed(id);
      let pid: number | undefined;
      try {
        const status = await probe.waitForExit(id, EXIT_DESPITE_GRANDCHILD_MS);
        pid = pidHere((await probe.output(id)).output, "grandchild");
        return observed(
          true,
          `wait_for_exit returned ${JSON.stringify(status)} while the background sleep still held the output open`,
        );
      } catch (error) {
        if (!(error instanceof CheckFailure) || error instanceof RpcFailure) {
          throw error;
        }
        pid = pidHere((await probe.output(id)).output, "grandchild");
        return observed(
          false,
          `wait_for_exit had not returned ${EXIT_DESPITE_GRANDCHILD_MS / 1000} s after sh exited: it waits for the background sleep that holds the output open`,
        );
      } finally {
        await probe.release(id);
        killLeftover(pid);
      }
    },
  },
  {
    id: "kill-returns-after-exit",
    name: "terminal/kill returns once the command has exited",
    kind: "behaviour",
    async run({ probe, embed }) {
      // The TERM trap takes 0.2 s to end the command, so a kill that returns at once is seen.
      const id = await probe.create(
        sh(`trap 'sleep 0.2; echo trapped; exit 3' TERM; ${backgroundSleep("started")} wait`),
      );
      await embed(id);
      const { output } = await probe.outputUntil(
        id,
        (o) => pidIn(o.output, "started") !== undefined,
        'expected "started=<pid>" in the output',
      );
      try {
        await probe.kill(id);
      } finally {
        // Only the group kill reaches the background sleep; a client without one leaves it.
        killLeftover(pidHere(output, "started"));
      }
      const after = await probe.output(id);
      const final = after.exitStatus != null;
      return observed(
        final,
        final
          ? `terminal/output read right after terminal/kill already had exitStatus ${JSON.stringify(after.exitStatus)}`
          : "terminal/output read right after terminal/kill had no exitStatus yet: kill returned before the command (ending 0.2 s after SIGTERM) had exited",
      );
    },
  },
  {
    id: "relative-cwd-refused",
    name: "a relative cwd is refused with -32602",
    kind: "behaviour",
    async run({ probe, embed }) {
      let id: string;
      try {
        id = await probe.create({ ...sh("pwd"), cwd: "." });
      } catch (error) {
        if (!(error instanceof RpcFailure)) {
          throw error;
        }
        return observed(
          error.rpc.code === -32602,
          `cwd "." refused with code ${error.rpc.code}: ${error.rpc.message}`,
        );
      }
      await embed(id);
      await probe.waitForExit(id);
      const { output } = await probe.output(id);
      return observed(
        false,
        `cwd "." accepted; the command ran in ${JSON.stringify(output.trim())}`,
      );
    },
  },
  {
    id: "pager-cat",
    name: "PAGER and GIT_PAGER are cat, so nothing waits in a pager",
    kind: "behaviour",
    async run(ctx) {
      const { output } = await runToExit(
        ctx,
        sh('printf "PAGER=%s GIT_PAGER=%s" "${PAGER-(unset)}" "${GIT_PAGER-(unset)}"'),
      );
      const cat = output === "PAGER=cat GIT_PAGER=cat";
      const note = cat
        ? ""
        : " (acp-terminal sets both to cat unless its own environment sets them)";
      return observed(cat, `${output}${note}`);
    },
  },
];
