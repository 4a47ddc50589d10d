import { randomUUID } from "node:crypto";
import { runToExit, sh, type Check } from "../base/check.js";
import { CheckFailure, expect, RpcFailure } from "../base/probe.js";
import { pidIn, READ_SHELL_PID, untilGone, visiblePid } from "./pids.js";

/** A command that runs far longer than any check: only kill or release ends it. */
const LONG = { command: "sleep", args: ["60"] };
/** terminal/create must not wait for the command: this is generous for a slow machine. */
const CREATE_AT_ONCE_MS = 3_000;

export const lifecycleChecks: Check[] = [
  {
    id: "create-returns-at-once",
    name: "terminal/create returns an id at once while the command runs",
    kind: "must",
    async run({ probe, embed }) {
      const started = Date.now();
      const id = await probe.create(LONG, CREATE_AT_ONCE_MS);
      const ms = Date.now() - started;
      await embed(id);
      const output = await probe.output(id);
      expect(
        output.exitStatus == null,
        `the command should still run, but output reports exitStatus ${JSON.stringify(output.exitStatus)}`,
      );
      return `answered in ${ms} ms with terminalId ${id}; the command is still running`;
    },
  },
  {
    id: "output-while-running",
    name: "terminal/output answers without waiting for the command to exit",
    kind: "must",
    async run({ probe, embed }) {
      const id = await probe.create(sh("echo ready; exec sleep 60"));
      await embed(id);
      const output = await probe.outputUntil(
        id,
        (o) => o.output.includes("ready"),
        'expected "ready" in the output',
      );
      expect(
        output.exitStatus == null,
        `exitStatus must be absent while running, got ${JSON.stringify(output.exitStatus)}`,
      );
      expect(
        output.truncated === false,
        `truncated must be false for 6 bytes of output, got ${String(output.truncated)}`,
      );
      return `output ${JSON.stringify(output.output)} read while the command runs, no exitStatus`;
    },
  },
  {
    id: "wait-for-exit-code",
    name: "terminal/wait_for_exit returns the exit code",
    kind: "must",
    async run({ probe, embed }) {
      const id = await probe.create(sh("echo exiting; exit 7"));
      await embed(id);
      const status = await probe.waitForExit(id);
      expect(status.exitCode === 7, `expected exitCode 7, got ${JSON.stringify(status)}`);
      expect(
        status.signal == null,
        `expected no signal for a normal exit, got ${JSON.stringify(status.signal)}`,
      );
      return `exitCode 7, signal ${JSON.stringify(status.signal ?? null)}`;
    },
  },
  {
    id: "output-exit-status",
    name: "terminal/output includes exitStatus once the command exited",
    kind: "must",
    async run(ctx) {
      const output = await runToExit(ctx, sh("printf done; exit 3"));
      expect(
        output.exitStatus?.exitCode === 3,
        `expected exitStatus.exitCode 3 after exit, got ${JSON.stringify(output.exitStatus)}`,
      );
      expect(
        output.output === "done",
        `expected output "done", got ${JSON.stringify(output.output)}`,
      );
      return `output "done" with exitStatus ${JSON.stringify(output.exitStatus)}`;
    },
  },
  {
    id: "kill-reports-signal",
    name: "terminal/kill stops the command and the signal is reported",
    kind: "must",
    async run({ probe, embed }) {
      const id = await probe.create(LONG);
      await embed(id);
      await probe.kill(id);
      const status = await probe.waitForExit(id);
      expect(
        typeof status.signal === "string" && status.signal !== "",
        `expected a signal after kill, got ${JSON.stringify(status)}`,
      );
      return `wait_for_exit after kill: ${JSON.stringify(status)}`;
    },
  },
  {
    id: "kill-keeps-terminal",
    name: "after terminal/kill the terminal stays valid and its output readable",
    kind: "must",
    async run({ probe, embed }) {
      const id = await probe.create(sh("echo before-kill; exec sleep 60"));
      await embed(id);
      await probe.outputUntil(
        id,
        (o) => o.output.includes("before-kill"),
        'expected "before-kill" in the output',
      );
      await probe.kill(id);
      const output = await probe.output(id);
      expect(
        output.output.includes("before-kill"),
        `output after kill lost what was printed: ${JSON.stringify(output.output)}`,
      );
      const status = await probe.waitForExit(id);
      const after = await probe.output(id);
      expect(
        after.exitStatus != null,
        `output after the command ended must carry exitStatus, got ${JSON.stringify(after)}`,
      );
      return `output and wait_for_exit still work after kill (${JSON.stringify(status)})`;
    },
  },
  {
    id: "release-kills-command",
    name: "terminal/release kills a running command",
    kind: "must",
    async run({ probe, embed }) {
      const id = await probe.create(sh(`${READ_SHELL_PID} echo pid=$p@$t; exec sleep 60`));
      await embed(id);
      const { output } = await probe.outputUntil(
        id,
        (o) => pidIn(o.output, "pid") !== undefined,
        "expected the command's pid",
      );
      const pid = visiblePid(output, "pid");
      await probe.release(id);
      if (!(await untilGone(pid, 3_000))) {
        throw new CheckFailure(`process ${pid} still runs 3 s after terminal/release`);
      }
      return `process ${pid} ended after release`;
    },
  },
  {
    id: "release-invalidates-id",
    name: "after terminal/release the terminal id is invalid",
    kind: "must",
    async run({ probe, embed }) {
      const id = await probe.create(sh("echo released"));
      await embed(id);
      await probe.waitForExit(id);
      await probe.release(id);
      try {
        const output = await probe.output(id);
        throw new CheckFailure(
          `terminal/output on a released id answered ${JSON.stringify(output)} instead of an error`,
        );
      } catch (error) {
        if (!(error instanceof RpcFailure)) {
          throw error;
        }
        return `terminal/output on the released id fails: ${error.rpc.message} (code ${error.rpc.code})`;
      }
    },
  },
  {
    id: "release-answers-pending-wait",
    name: "a wait_for_exit pending when its terminal is released learns how the command ended",
    kind: "should",
    async run({ probe, embed }) {
      const id = await probe.create(LONG);
      await embed(id);
      // Sent before the release, so valid when sent: the release ends the command it waits for.
      const waiting = probe.waitForExit(id, 10_000).then(
        (status) => ({ status }),
        (error: unknown) => ({ error }),
      );
      await probe.release(id);
      const outcome = await waiting;
      if ("error" in outcome) {
        if (!(outcome.error instanceof RpcFailure)) {
          throw outcome.error;
        }
        throw new CheckFailure(
          `the pending wait_for_exit failed (${outcome.error.rpc.message}, code ${outcome.error.rpc.code}) instead of answering with how the release ended the command`,
        );
      }
      const { status } = outcome;
      expect(
        status.signal != null || status.exitCode != null,
        `the pending wait_for_exit answered ${JSON.stringify(status)}, with neither a signal nor an exit code`,
      );
      return `the pending wait_for_exit answered ${JSON.stringify(status)} after the release`;
    },
  },
  {
    id: "unknown-id-error",
    name: "an unknown terminal id is an error",
    kind: "should",
    async run({ probe }) {
      const id = `no-such-terminal-${randomUUID()}`;
      for (const call of [
        () => probe.output(id),
        () => probe.waitForExit(id),
        () => probe.kill(id),
      ]) {
        try {
          const answer = await call();
          throw new CheckFailure(
            `a call on unknown id ${id} answered ${JSON.stringify(answer)} instead of an error`,
          );
        } catch (error) {
          if (!(error instanceof RpcFailure)) {
            throw error;
          }
        }
      }
      return "terminal/output, wait_for_exit and kill on an unknown id all fail";
    },
  },
];
