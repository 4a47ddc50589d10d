import type { RunSnapshot, WatcherSpec } from "acp-process";
import { BACKGROUND_TIMEOUT_MS, type DemoSession } from "../session.js";

/**
 * `bg <cmd>`: starts a background run and returns at once. Its tool call stays in progress with
 * the terminal embedded; the BackgroundReporter finishes it and says so when the run ends.
 */
export async function bgCommand(session: DemoSession, command: string, watch: WatcherSpec[] = []): Promise<RunSnapshot> {
  return session.tool(`bg: ${command}`, { command, background: true }, async (call) => {
    session.background.expect(call); // before the start: a fast command may end at once
    const run = await session.manager.start({
      sessionId: session.id,
      command,
      cwd: session.cwd,
      timeoutMs: BACKGROUND_TIMEOUT_MS,
      watch,
      labels: { toolCallId: call.id, background: "true" },
    });
    await call.running(session.terminalOf(run), `Started ${run.id} in the background. poll ${run.id} · log ${run.id} · kill ${run.id}`);
    await session.say(`Started ${run.id} in the background.\n`, { event: "started", id: run.id, status: run.status });
    return run;
  });
}
