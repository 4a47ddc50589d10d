import type { RunSnapshot } from "acp-process";
import type { DemoSession } from "../session.js";

/** `list`: every run of this session, newest first. */
export async function listCommand(session: DemoSession): Promise<RunSnapshot[]> {
  return session.tool("list", {}, async (call) => {
    const runs = session.manager.list({ sessionId: session.id, limit: 100 });
    const lines = runs.map(
      (run) =>
        `${run.id}  ${run.status.padEnd(9)}  ${String(run.exitCode ?? run.signal ?? "-").padEnd(7)}  ${run.command}`,
    );
    const running = runs.filter(
      (run) => run.status === "running" || run.status === "queued",
    ).length;
    const text =
      runs.length === 0
        ? "No runs in this session."
        : `${runs.length} runs, ${running} running\n${lines.join("\n")}`;
    await call.finish("completed", text, {
      runs: runs.map((run) => ({
        id: run.id,
        status: run.status,
        exitCode: run.exitCode,
        command: run.command,
      })),
    });
    return runs;
  });
}
