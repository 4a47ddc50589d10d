import type { LineView, RunSnapshot } from "acp-process";
import { describeRun, fenced } from "../format.js";
import type { DemoSession } from "../session.js";

/** `log <id> [n]`: the last n lines of a run's output, with their position in the whole output. */
export async function logCommand(
  session: DemoSession,
  id: string,
  lines: number,
): Promise<LineView & { run: RunSnapshot }> {
  return session.tool(`log ${id} ${lines}`, { id, lines }, async (call) => {
    const view = await session.manager.lines(id, { sessionId: session.id, limit: lines });
    const range =
      view.lines.length === 0
        ? "no lines"
        : `lines ${view.offset + 1}–${view.offset + view.lines.length} of ${view.totalLines}`;
    await call.finish(
      "completed",
      `${range}; ${describeRun(view.run)}\n${fenced(view.lines.join("\n"))}`,
      {
        id,
        offset: view.offset,
        lines: view.lines.length,
        totalLines: view.totalLines,
        droppedLines: view.droppedLines,
        status: view.run.status,
      },
    );
    return view;
  });
}
