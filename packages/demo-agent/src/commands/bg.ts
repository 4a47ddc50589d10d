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
      // Embedded from onStart, which the release of the terminal waits for: a command that ends
      // at once is still shown in the client's terminal (and a queued one when it starts).
      onStart: (started) => call.running(session.terminalOf(started), `Started ${started.id} in the background. poll ${started.id} · log ${started.id} · kill ${started.id}`),
    });
    await session.say(`Started ${run.id} in the background.\n`, { event: "started", id: run.id, status: run.status });
    return run;
  });
}
