import type { RunSnapshot } from "acp-process";
import { describeRun, fenced, runFacts } from "../format.js";
import { followProgress } from "../progress.js";
import type { DemoSession } from "../session.js";
import { toolStatusOf } from "../tool-call.js";

export interface RunResult {
  run: RunSnapshot;
  /** The last output (up to OUTPUT_TAIL_CHARS characters): on a timeout, what the command printed before it. */
  output: string;
}

/**
 * `run [--timeout S] <cmd>`: a foreground run. The tool call shows the terminal and (throttled) the
 * output so far while it runs, and ends with the status and output. A timeout — the hard one, or
 * `--idle S` without output — is a status (`timed_out`) with the partial output.
 */
export async function runCommand(
  session: DemoSession,
  command: string,
  timeoutSeconds: number,
  idleSeconds?: number,
): Promise<RunResult> {
  const idle = idleSeconds === undefined ? {} : { idleSeconds };
  return session.tool(
    `run${idleSeconds === undefined ? "" : ` --idle ${idleSeconds}`}: ${command}`,
    { command, timeoutSeconds, ...idle },
    async (call) => {
      const started = await session.manager.start({
        sessionId: session.id,
        command,
        cwd: session.cwd,
        timeoutMs: Math.round(timeoutSeconds * 1000),
        ...(idleSeconds === undefined ? {} : { idleTimeoutMs: Math.round(idleSeconds * 1000) }),
        labels: { toolCallId: call.id },
        // Embedded from onStart: the run keeps its terminal until this update is sent, so even an
        // instant command is shown in the client's terminal before it is released.
        // Status updates with the output follow until the run's exit event.
        onStart: (run) => {
          followProgress(session, call, run.id);
          return call.running(session.terminalOf(run));
        },
      });
      const run = await session.untilDone(started.id);
      const output = session.outputTail(run.id);
      await call.finish(toolStatusOf(run), `${describeRun(run)}\n${fenced(output)}`, runFacts(run));
      return { run, output };
    },
  );
}
